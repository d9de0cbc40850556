import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a reply path decided on one side of a lock and answered on the other, so a
/// `close()` racing a call leaves the engine's reply handler unanswered.
@Suite("Reliability: close racing calls")
struct CloseRaceTests {
    @Test("close() racing calls from every frame: every reply handler is answered exactly once")
    func closeRacingCalls() async throws {
        var unanswered = 0
        for round in 0..<300 {
            let router = try makeRouter([echoTask])
            router.connect(PageChannel { _ in })
            let replies = ReplyLog()
            let text = jsonText(["v": 1, "kind": "call", "id": "c", "task": "echo"])
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let text = text.replacingOccurrences(of: #""c""#, with: "\"c\(index)\"")
                        router.receive(
                            .string(text), from: .mainFrame(appOrigin), replyHandler: replies.handler("\(index)"))
                    }
                }
                group.addTask { await router.close() }
            }
            if !(await settle { replies.notAnsweredOnce.isEmpty }) {
                unanswered += replies.notAnsweredOnce.count
                Issue.record("round \(round): unanswered \(replies.notAnsweredOnce)")
            }
        }
        #expect(unanswered == 0)
    }
}
