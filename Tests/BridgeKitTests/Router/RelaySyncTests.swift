import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// The relay's `sync` (docs/protocol.md, "Relay: flow control"): native answers it, with nothing,
/// as soon as it reads it, from any sender, and logs nothing; it never touches a call. The relay
/// learns from that answer that native has read its frame's earlier posts (attack 19: without it a
/// long call held the relay's bound until it ended).
@Suite("Router: the relay's sync")
struct RelaySyncTests {
    static let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
        try await Task.sleep(for: .seconds(60))
        return 1
    }

    @Test("a sync is answered with nothing before receive returns, while an earlier call still runs; nothing is logged")
    func answeredAtOnce() throws {
        let router = try makeRouter([Self.slow])
        let records = Mutex<[TrafficRecord]>([])
        router.setTrafficObserver { record in records.withLock { $0.append(record) } }
        let callAnswers = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"long","task":"slow"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in callAnswers.withLock { $0.append(json) } })
        let before = records.withLock { $0.count }
        for source in [MessageSource.mainFrame(appOrigin), MessageSource(origin: nil, isMainFrame: false)] {
            let answers = Mutex<[String?]>([])
            router.receive(
                .string(#"{"v":1,"kind":"sync"}"#), from: source,
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.withLock { $0.append(json) } })
            let got = answers.withLock { $0 }
            #expect(got.count == 1, "answered once, at once: \(got)")
            #expect((got.first ?? "x") == nil, "with nothing: \(got)")
        }
        #expect(records.withLock { $0.count } == before, "a sync is not traffic")
        #expect(callAnswers.withLock { $0.isEmpty }, "the running call is untouched")
    }
}
