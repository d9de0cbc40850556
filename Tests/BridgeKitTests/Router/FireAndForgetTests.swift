import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Kind of fault: work of a page that is gone goes on (a stale history notice applied after the
/// page changed, a job that outlives close()), or a later page's work is held up or dropped.
@Suite("Fire-and-forget calls: cancelled with their page")
struct FireAndForgetTests {
    /// A fire-and-forget task that runs until cancelled, and one that records its runs.
    struct Tasks {
        let started = Counter()
        let cancelled = Counter()
        let notes = Locked<[Int]>([])

        func register(in router: BridgeRouter) throws {
            let (started, cancelled, notes) = (started, cancelled, notes)
            try router.register(
                ClosureTask(name: "hold") { (_: NoOptions, _: CallContext) -> NoResult in
                    started.increment()
                    while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
                    cancelled.increment()
                    return NoResult()
                })
            try router.register(
                SynchronousClosureTask(name: "note") { (options: Int, _) -> NoResult in
                    notes.set(notes.value + [options])
                    return NoResult()
                })
        }
    }

    /// A router with ``Tasks``, its traffic log and a page.
    static func open() throws -> (BridgeRouter, Tasks, TrafficLog, InMemoryPage) {
        let router = try makeRouter()
        let tasks = Tasks()
        try tasks.register(in: router)
        return (router, tasks, TrafficLog(router), InMemoryPage(router: router))
    }

    @Test("a navigation cancels the old page's running call and drops its queued ones; the new page's run")
    func navigationCancels() async throws {
        let (_, tasks, log, page) = try Self.open()
        page.send("hold", fireAndForget: true)
        page.send("note", options: 1, fireAndForget: true)  // queued behind "hold"
        #expect(await eventually { tasks.started.value == 1 })

        page.navigate()
        #expect(await eventually { tasks.cancelled.value == 1 })
        page.send("note", options: 2, fireAndForget: true)
        #expect(await eventually { tasks.notes.value == [2] })
        #expect(log.all.contains { $0.task == "note" && $0.outcome == "navigated" && $0.reason == .fireAndForget })
        #expect(tasks.notes.value == [2])
        #expect(page.deliveries.isEmpty)
    }

    /// Attack 26, F3: one lane in arrival order let an allowed iframe's 30 notices, each taking
    /// its whole turn, hold up the main frame's next notice by 30 s.
    @Test(
        "a subframe's queued calls hold up the main frame's next one by at most the turn running",
        .timeLimit(.minutes(1)))
    func mainFrameGoesFirst() async throws {
        let router = try makeRouter(policy: .origins([OriginPattern(appOrigin)], allowsSubframes: true))
        let tasks = Tasks()
        try tasks.register(in: router)
        let page = InMemoryPage(router: router)
        for _ in 0..<5 { page.send("hold", fireAndForget: true, from: .subframe(appOrigin)) }
        #expect(await eventually { tasks.started.value == 1 })
        let clock = ContinuousClock()
        let sent = clock.now
        page.send("note", options: 1, fireAndForget: true)
        #expect(await eventually(5_000) { tasks.notes.value == [1] })
        let waited = clock.now - sent
        #expect(waited < .milliseconds(2_500), "the main frame's call waited \(waited)")
        // The subframe's calls go on in their order once the main frame has none waiting.
        #expect(await eventually(8_000) { tasks.started.value == 5 })
    }

    @Test("close() cancels a running call and drops the queued ones")
    func closeCancels() async throws {
        let (router, tasks, log, page) = try Self.open()
        page.send("hold", fireAndForget: true)
        for index in 1...3 { page.send("note", options: .int(Int64(index)), fireAndForget: true) }
        #expect(await eventually { tasks.started.value == 1 })

        await router.close()
        #expect(await eventually { tasks.cancelled.value == 1 })
        #expect(
            await eventually {
                log.all.filter { $0.outcome == "unavailable" && $0.reason == .fireAndForget }.count == 3
            })
        #expect(tasks.notes.value.isEmpty)
    }

    @Test("a call that outlives its turn is still cancelled by a navigation, while later calls go on")
    func slowCallCancelledLater() async throws {
        let (_, tasks, _, page) = try Self.open()
        page.send("hold", fireAndForget: true)
        page.send("note", options: 1, fireAndForget: true)
        // "hold" never ends by itself: after its turn (one second) the queue moves on without it.
        #expect(await eventually(3_000) { tasks.notes.value == [1] })
        #expect(tasks.cancelled.value == 0)

        page.navigate()
        #expect(await eventually { tasks.cancelled.value == 1 })
    }
}
