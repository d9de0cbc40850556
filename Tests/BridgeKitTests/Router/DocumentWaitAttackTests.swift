import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// Attack on 045a3ba (``DocumentWait``): interleavings of the wait with close() and with steady
/// traffic that break the principles the wait is meant to keep.
@Suite("Router: attacking the document wait")
struct DocumentWaitAttackTests {
    static let documentA = String(repeating: "a1", count: 16)
    static let documentB = String(repeating: "b2", count: 16)

    /// A channel that logs every script in the order the engine receives it (bound or not), and
    /// holds the engine on the scripts that carry `gateMarker` until the test opens the gate.
    final class GatedChannel: Sendable {
        let log = Mutex<[String]>([])
        let gateMarker: String
        let gateOpen = Atomic<Bool>(false)
        init(gateMarker: String) { self.gateMarker = gateMarker }
        var channel: PageChannel {
            PageChannel(
                evaluate: { script in await self.evaluate(script) },
                evaluateForDocument: { script in await self.evaluate(script) })
        }
        private func evaluate(_ script: String) async {
            log.withLock { $0.append(script) }
            guard script.contains(gateMarker) else { return }
            // The engine is busy with this script (a page in a long synchronous handler, a slow
            // web process) until the test lets it go.
            while !gateOpen.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
        }
        var scripts: [String] { log.withLock { $0 } }
    }

    /// Polls `condition` until `limit` of wall-clock time passed (for a condition that must *not*
    /// become true on correct code: the limit bounds the test, not a synchronization).
    static func within(_ limit: Duration, _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    /// Finding 1 (close during a drain). `close()` drains held scripts only when it finds the
    /// wait *holding*; when the notice already started a flusher (phase `draining`, one script on
    /// its way to the engine, others queued behind it), `DocumentWait.closed` returns `.none`,
    /// and close() neither waits for the flusher nor sends the queue: it settles the pending
    /// calls and sends their final replies at once, then returns while scripts still wait. A
    /// call's progress queued behind the flusher reaches the page *after* the call's final reply
    /// (`unavailable`), and after close() returned (the flusher still uses the closing channel).
    @Test(
        "close() while the held scripts drain: it returns only after they went out, and a call's progress precedes its final reply",
        .timeLimit(.minutes(1)))
    func closeDuringDrain() async throws {
        let progressing = ClosureTask(name: "progressing") { (_: NoOptions, context: CallContext) -> Int in
            try await context.progress(41)
            try await Task.sleep(for: .seconds(60))  // until close() cancels it
            return 42
        }
        let router = try makeRouter([progressing])
        let page = InMemoryPage(router: router)
        let gated = GatedChannel(gateMarker: "\"name\":\"blocker\"")
        router.connect(gated.channel)  // replaces the page's own channel: one ordered log
        router.documentWaitLimit = .seconds(60)
        router.pageDidAnnounceDocument(Self.documentA)
        router.pageDidCommitNavigation()
        let blocker = Task { try await router.emit("blocker", data: 0) }
        #expect(await eventually { router.heldScriptCount == 1 })
        let queued = Task { try await router.emit("queued", data: 1) }
        #expect(await eventually { router.heldScriptCount == 2 })
        router.pageDidAnnounceDocument(Self.documentB)  // the flusher starts: the blocker is on its way
        #expect(await eventually { gated.scripts.contains { $0.contains("\"name\":\"blocker\"") } })
        #expect(router.heldScriptCount == 1, "the second event waits behind the flusher")

        // The new document calls a task; its progress, sent while the flusher drains, goes at once
        // (its sender waited for nothing held).
        let id = try #require(page.send("progressing"))
        #expect(await eventually { gated.scripts.contains { $0.contains("\"kind\":\"progress\"") } })

        let closed = Locked(false)
        let closing = Task {
            await router.close()
            closed.set(true)
        }
        // On correct code close() waits for the flusher, which waits for the gate: bounded poll.
        let returnedEarly = await Self.within(.seconds(2)) { closed.value }
        let stillHeld = router.heldScriptCount
        gated.gateOpen.store(true, ordering: .releasing)
        await closing.value
        _ = try? await blocker.value
        _ = try? await queued.value
        #expect(await eventually { router.heldScriptCount == 0 })
        // (The progress of the call close() settled may go out before its final reply, or not at
        // all; never after it.)

        #expect(
            !(returnedEarly && stillHeld > 0),
            "close() returned while \(stillHeld) script(s) still waited; they went out after it returned")
        let scripts = gated.scripts
        let progressIndex = scripts.firstIndex { $0.contains("\"kind\":\"progress\"") && $0.contains(id) }
        let replyIndex = scripts.firstIndex { $0.contains("\"kind\":\"reply\"") && $0.contains(id) }
        #expect(replyIndex != nil, "no final reply for \(id)")
        if let progressIndex, let replyIndex {
            #expect(
                progressIndex < replyIndex,
                "the final reply of \(id) reached the page before its progress: \(scripts.map { $0.prefix(120) })")
        }
    }

    /// A channel that behaves like an engine with a round trip: each evaluation takes `latency`,
    /// and several may be in flight at once (WebKit pipelines `evaluate_javascript`). It counts
    /// evaluations and the most that were in flight at once.
    final class LatencyChannel: Sendable {
        let latency: Duration
        let inFlight = Atomic<Int>(0)
        let maxInFlight = Atomic<Int>(0)
        let evaluated = Atomic<Int>(0)
        init(latency: Duration) { self.latency = latency }
        var channel: PageChannel {
            PageChannel(
                evaluate: { _ in await self.evaluate() }, evaluateForDocument: { _ in await self.evaluate() })
        }
        private func evaluate() async {
            let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
            var seen = maxInFlight.load(ordering: .sequentiallyConsistent)
            while now > seen {
                let (exchanged, original) = maxInFlight.compareExchange(
                    expected: seen, desired: now, ordering: .sequentiallyConsistent)
                if exchanged { break }
                seen = original
            }
            try? await Task.sleep(for: latency)  // the engine's round trip, not a synchronization
            inFlight.subtract(1, ordering: .sequentiallyConsistent)
            evaluated.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Finding 2 (a drain that never ends). The flusher sends one script at a time, each after the
    /// engine evaluated the one before, and every script sent while it drains joins the queue;
    /// the queue opens again only once it is empty. Under steady traffic from several tasks
    /// (a progress stream per call, events from several producers) each sender re-joins the
    /// queue as soon as its previous script went out, so the queue never empties: after one
    /// navigation, all traffic stays serialized to one script per engine round trip for as long
    /// as the load lasts (here 8 producers: 8× less throughput), although the document was named
    /// long ago and nothing is navigating.
    @Test(
        "After the notice, steady traffic from several tasks goes back to the engine unserialized",
        .timeLimit(.minutes(1)))
    func drainUnderSteadyLoadEnds() async throws {
        let router = try makeRouter()
        let engine = LatencyChannel(latency: .milliseconds(4))
        router.connect(engine.channel)
        router.documentWaitLimit = .seconds(60)
        router.pageDidAnnounceDocument(Self.documentA)
        let stop = Locked(false)
        let producers = 8
        var tasks: [Task<Void, Never>] = []
        for producer in 0..<producers {
            tasks.append(
                Task {
                    var n = 0
                    while !stop.value {
                        try? await router.emit("tick", data: [producer, n])
                        n += 1
                    }
                })
        }
        defer {
            stop.set(true)
        }
        #expect(await eventually { engine.maxInFlight.load(ordering: .sequentiallyConsistent) >= 2 }, "baseline")

        router.pageDidCommitNavigation()
        // Every producer's next event waits for the new document's notice.
        #expect(await eventually { router.heldScriptCount == producers })
        router.pageDidAnnounceDocument(Self.documentB)
        engine.maxInFlight.store(0, ordering: .sequentiallyConsistent)
        let before = engine.evaluated.load(ordering: .sequentiallyConsistent)
        let clock = ContinuousClock()
        let start = clock.now
        let reopened = await Self.within(.seconds(3)) {
            engine.maxInFlight.load(ordering: .sequentiallyConsistent) >= 2
        }
        let elapsed = clock.now - start
        let sent = engine.evaluated.load(ordering: .sequentiallyConsistent) - before
        let held = router.heldScriptCount
        stop.set(true)
        for task in tasks { await task.value }
        #expect(
            reopened,
            "\(elapsed) after the notice every script still waits for the one before (\(sent) sent, \(held) queued)")
        await router.close()
    }
}

extension DocumentWaitAttackTests {
    /// Finding 3 (call and cancel sent from two tasks). The wait keeps the order in which
    /// scripts *join the queue*, but a native-to-page call joins it from an unstructured task
    /// (`callPageRaw`: `Task { await send(call) }`) and its cancel from another
    /// (`failPageCall`: `Task { await send(cancel) }`), so when the call times out or its Swift
    /// task is cancelled right after it was registered, the two tasks race for the queue and the
    /// cancel can join first. The page then ignores the cancel (no such call yet) and runs the
    /// handler of a call native already reported as timed out / cancelled; nothing aborts it.
    /// (`callAndCancelOrder` in DocumentWaitTests uses a 50 ms timeout, long after the call joined.)
    /// Since attack 10 the cancel never waits for its call: a call that settles before its script
    /// left the router is never sent and needs no cancel (``RouterState/handOver(_:)``).
    @Test(
        "A native-to-page call that times out at once, while scripts wait, reaches the document neither as a call nor as a cancel",
        .timeLimit(.minutes(2)))
    func immediateTimeoutOrder() async throws {
        var sent = 0
        let rounds = 1000
        for _ in 0..<rounds {
            let (router, recording) = try DocumentWaitTests.betweenCommitAndNotice()
            let traffic = TrafficLog(router)
            await #expect(throws: BridgeError.self) {
                _ = try await router.callPage("save", options: ["item": 1], timeout: .zero)
            }
            router.pageDidAnnounceDocument(Self.documentB)
            #expect(await eventually { traffic.all.contains { $0.direction == .outbound && $0.kind == .call } })
            await router.close()
            let scripts = recording.document.withLock { $0 } + recording.page.withLock { $0 }
            if scripts.contains(where: { $0.contains("\"kind\":\"call\"") || $0.contains("\"kind\":\"cancel\"") }) {
                sent += 1
            }
        }
        #expect(sent == 0, "the timed-out call or a cancel reached the page in \(sent) of \(rounds) rounds")
    }
}

extension DocumentWaitAttackTests {
    /// Finding 4 (a reply-handler reply overtakes queued progress). Progress waits in the queue
    /// while a flusher drains (or while the generation holds), but a final reply through the
    /// message's reply handler (`carriesFinalReplies`: WebKitGTK's relay, `WKScriptMessageHandlerWithReply`)
    /// never joins the queue. When the call settles while its progress waits (its timeout, the
    /// page's cancel, a navigation-free `close()`), the final reply reaches the page first and
    /// the progress of an already settled call follows it (reaching the same id again: a page
    /// that reuses ids gets it in its *next* call). Before the wait, the progress was already in
    /// the engine's queue when the reply was written. `sendProgress` promises it "stops with the
    /// call".
    @Test(
        "A call that times out while its progress waits in the queue: the progress does not follow its final reply",
        .timeLimit(.minutes(1)))
    func timeoutReplyOvertakesQueuedProgress() async throws {
        let progressing = ClosureTask(name: "progressing") { (_: NoOptions, context: CallContext) -> Int in
            try await context.progress(41)
            try await Task.sleep(for: .seconds(60))  // until the timeout cancels it
            return 42
        }
        let router = try makeRouter([progressing], defaultTimeout: .milliseconds(100))
        let gated = GatedChannel(gateMarker: "\"name\":\"blocker\"")
        gated.gateOpen.store(true, ordering: .releasing)
        router.connect(gated.channel)
        router.documentWaitLimit = .seconds(60)
        router.pageDidAnnounceDocument(Self.documentA)
        router.pageDidCommitNavigation()

        // Document B calls before its notice (a page restored from the back-forward cache calls
        // before its pageshow notice), with a reply handler that carries final replies (WebKitGTK).
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"c-1","task":"progressing"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in
                gated.log.withLock { $0.append("replyHandler: \(json ?? "nil")") }
            })
        #expect(await eventually { router.heldScriptCount == 1 }, "its progress waits behind the flusher")
        #expect(
            await eventually { gated.scripts.contains { $0.hasPrefix("replyHandler:") } }, "the call times out")
        router.pageDidAnnounceDocument(Self.documentB)  // the flusher sends what waited
        #expect(await eventually { router.heldScriptCount == 0 })
        let scripts = gated.scripts
        let replyIndex = try #require(scripts.firstIndex { $0.hasPrefix("replyHandler:") })
        let lateProgress = scripts[replyIndex...].filter { $0.contains("\"kind\":\"progress\"") }
        #expect(
            lateProgress.isEmpty,
            "the progress of c-1 reached the page after its final reply \(scripts[replyIndex].prefix(100))")
        await router.close()
    }
}

extension DocumentWaitAttackTests {
    /// Finding 5 (a script that cannot be bound skips the queue). While the generation holds,
    /// `mustHold` holds only scripts whose channel can bind (`evaluateForDocument`); others went
    /// out at once, ahead of every script already waiting. When the host connects a channel that
    /// cannot bind while scripts wait (a re-attached bridge, a host that connects its own
    /// channel), an event made after another overtook it (and a cancel its call, before attack
    /// 10 made a call that settles while it waits never sent).
    @Test(
        "A channel without evaluateForDocument connected while scripts wait: a later script does not overtake a waiting one",
        .timeLimit(.minutes(1)))
    func unbindableChannelSkipsQueue() async throws {
        let router = try makeRouter()
        let log = Mutex<[String]>([])
        router.connect(
            PageChannel(
                evaluate: { script in log.withLock { $0.append(script) } },
                evaluateForDocument: { script in log.withLock { $0.append(script) } }))
        router.documentWaitLimit = .seconds(60)
        router.pageDidAnnounceDocument(Self.documentA)
        router.pageDidCommitNavigation()
        let first = Task { try await router.emit("first", data: 1) }
        #expect(await eventually { router.heldScriptCount == 1 }, "the event waits for the notice")
        // The host connects a channel that evaluates in the page world only.
        router.connect(PageChannel(evaluate: { script in log.withLock { $0.append(script) } }))
        let second = Task { try await router.emit("second", data: 2) }
        #expect(await eventually { router.heldScriptCount == 2 }, "the later event waits behind it")
        router.pageDidAnnounceDocument(Self.documentB)
        try await first.value
        try await second.value
        let scripts = log.withLock { $0 }
        let firstIndex = scripts.firstIndex { $0.contains("\"name\":\"first\"") }
        let secondIndex = scripts.firstIndex { $0.contains("\"name\":\"second\"") }
        #expect(firstIndex != nil && secondIndex != nil)
        if let firstIndex, let secondIndex {
            #expect(firstIndex < secondIndex, "the later event reached the page first")
        }
        await router.close()
    }
}
