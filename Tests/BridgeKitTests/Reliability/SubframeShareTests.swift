import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: subframes use up a budget the main frame needs. Five allowed iframes, each
/// within its relay's limits, held 62 calls of 1 MiB and the main frame's call failed
/// `memory_budget_exceeded` (attack 25, F4b). The same holds for every count the router keeps
/// for its page: subframes together get at most half of it (``ByteBudgetTests`` covers the bytes).
@Suite("Limits: subframes get half of each budget, the main frame the other half")
struct SubframeShareTests {
    /// An asynchronous task that runs until the test opens its gate.
    private final class Gate: Sendable {
        let started = Mutex(0)
        let open = Atomic<Bool>(false)
        var task: some BridgeTask {
            ClosureTask(name: "hold") { (_: NoOptions, _: CallContext) -> NoResult in
                self.started.withLock { $0 += 1 }
                while !self.open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
                return NoResult()
            }
        }
    }

    private static func router(_ gate: Gate, maxPendingCalls: Int) throws -> BridgeRouter {
        try makeRouter(
            [gate.task], limits: BridgeLimits(maxPendingCalls: maxPendingCalls),
            policy: .origins([OriginPattern(appOrigin)], allowsSubframes: true))
    }

    @Test("pending calls: subframes' calls take at most half of maxPendingCalls; the main frame's still go in")
    func pendingCalls() async throws {
        let gate = Gate()
        let router = try Self.router(gate, maxPendingCalls: 4)
        let page = InMemoryPage(router: router)
        let subframe = MessageSource.subframe(appOrigin)
        for id in ["s1", "s2"] { page.send("hold", id: id, from: subframe, replyHandler: true) }
        #expect(await eventually { gate.started.withLock { $0 } == 2 })
        let third = await page.call("hold", id: "s3", from: subframe, replyHandler: true)
        #expect(third["error"]?.string("code") == "too_many_pending_calls")
        // The main frame has the other half, and no more.
        for id in ["m1", "m2"] { page.send("hold", id: id) }
        #expect(await eventually { gate.started.withLock { $0 } == 4 })
        #expect(await page.call("hold", id: "m3")["error"]?.string("code") == "too_many_pending_calls")
        gate.open.store(true, ordering: .releasing)
        for id in ["s1", "s2"] { #expect(await page.reply(for: id)["ok"] == true) }
        for id in ["m1", "m2"] { #expect(await page.reply(for: id)["ok"] == true) }
        // Settled subframe calls give their places back.
        #expect(await page.call("hold", id: "s4", from: subframe, replyHandler: true)["ok"] == true)
    }

    @Test(
        "fire-and-forget calls: subframes' queued calls take at most half of the queue; the main frame's are still queued"
    )
    func fireAndForget() async throws {
        let gate = Gate()
        let router = try Self.router(gate, maxPendingCalls: 4)
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        let subframe = MessageSource.subframe(appOrigin)
        // The first runs (and so leaves the queue); two more wait; the fourth is past the half.
        page.send("hold", fireAndForget: true, from: subframe)
        #expect(await eventually { gate.started.withLock { $0 } == 1 })
        for _ in 0..<3 { page.send("hold", fireAndForget: true, from: subframe) }
        let dropped = { log.all.filter { $0.outcome == "too_many_pending_calls" && $0.reason == .fireAndForget }.count }
        #expect(await eventually { dropped() == 1 })
        for _ in 0..<2 { page.send("hold", fireAndForget: true) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(dropped() == 1, "the main frame's calls are queued")
        gate.open.store(true, ordering: .releasing)
        #expect(await eventually { gate.started.withLock { $0 } == 5 })
    }
}
