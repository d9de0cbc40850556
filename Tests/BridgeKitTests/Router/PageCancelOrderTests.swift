import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// The page's cancel settles its call when native reads it, not in a task started later: what
/// comes after it (the page's next message ending the run, `close()`, a navigation) finds the
/// call settled `cancelled`. Found by CI under load: bridgehost's `--strict` counted a call the
/// page had timed out and cancelled as `unavailable`, because the page's very next message
/// (`bridgehost.done`) closed the router before the task that was to settle the cancel ran.
@Suite("Router: a page's cancel settles its call at once")
struct PageCancelOrderTests {
    static let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
        try await Task.sleep(for: .seconds(60))
        return 1
    }

    @Test("a call the page cancelled, then close(): its final reply is cancelled", .timeLimit(.minutes(1)))
    func cancelThenClose() async throws {
        for round in 0..<200 {
            let router = try makeRouter([Self.slow])
            router.connect(PageChannel { _ in })
            let answers = Mutex<[String?]>([])
            let id = "c-\(round)"
            router.receive(
                .string(#"{"v":1,"kind":"call","id":"\#(id)","task":"slow"}"#), from: .mainFrame(appOrigin),
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.withLock { $0.append(json) } })
            router.receive(.string(#"{"v":1,"kind":"cancel","id":"\#(id)"}"#), from: .mainFrame(appOrigin))
            await router.close()
            #expect(await eventually { answers.withLock { $0.count } == 1 }, "the call is answered once")
            let reply = answers.withLock { $0.first ?? nil } ?? ""
            #expect(reply.contains("\"code\":\"cancelled\""), "round \(round): \(reply)")
            if !reply.contains("\"code\":\"cancelled\"") { break }
        }
    }
}
