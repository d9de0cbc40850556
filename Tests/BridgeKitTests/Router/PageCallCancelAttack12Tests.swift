import BridgeKitTesting
import BridgeTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// Attack 12 on the ordered cancels of native-to-page calls (73a5b24: ``CancelOrder`` numbers a
/// handed-over call's cancel; a later script of its generation, and a task's final reply through a
/// reply handler, wait for the cancels numbered before them).
@Suite("Router: attacking the ordered cancels of native-to-page calls (attack 12)")
struct PageCallCancelAttack12Tests {
    typealias HangingChannel = PageCallCancelAttack11Tests.HangingChannel
    static let documentA = String(repeating: "a1", count: 16)

    /// Puts a cancel of document A into the engine, whose evaluation does not return.
    static func hangACancel(_ router: BridgeRouter, _ hanging: HangingChannel) async throws {
        try await PageCallCancelAttack11Tests.hangACancel(router, hanging)
    }

    /// Finding 1 (the deferred reply-handler final reply escapes the byte budget, without bound).
    /// `settle` (CallStateMachine.swift) defers a task's final reply through a reply handler
    /// behind the cancels in flight: it keeps the task's *result value* in a `Task` that awaits
    /// `waitForCancels`, and returns `nil`. `runWork` then releases the call's `heldBytes` at once
    /// and charges nothing for the reply (it charges only a returned reply *script*, for as long
    /// as `send` holds it). The call is no longer pending either (settled, out of `calls`), so
    /// `maxPendingCalls` does not bound these replies. While one cancel's evaluation hangs (a busy
    /// or hung web process: the case attack 11 was about), a page can make any number of calls
    /// whose large results all stay in memory, each admitted against an empty budget. The same
    /// replies by script are charged while they wait (`budget.charge`, "held, whatever the
    /// budget, until sent") and further calls are refused `memory_budget_exceeded`.
    ///
    /// Suggested fix: charge the deferred reply against the budget while it waits, as `runWork`
    /// does for a reply script (encode it first, charge `message.json.count`, release after the
    /// reply handler was answered), or keep the call's `heldBytes` until the deferred reply is
    /// written.
    @Test(
        "Final replies a reply handler carries, waiting behind a hung cancel, are charged to the byte budget",
        .timeLimit(.minutes(1)))
    func deferredReplyHandlerRepliesEscapeBudget() async throws {
        let finished = Mutex(0)
        let big = ClosureTask(name: "big") { (_: NoOptions, _: CallContext) -> String in
            defer { finished.withLock { $0 += 1 } }
            return String(repeating: "x", count: 100_000)
        }
        let router = try makeRouter([big], limits: BridgeLimits(maxHeldBytes: 350_000))
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)

        // WebKitGTK's relay / WKScriptMessageHandlerWithReply: the final reply goes back
        // through the reply handler.
        let replies = Mutex<[String?]>([])
        for index in 0..<10 {
            router.receive(
                .string(#"{"v":1,"kind":"call","id":"p-\#(index)","task":"big"}"#), from: .mainFrame(appOrigin),
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        }
        #expect(await eventually { finished.withLock { $0 } == 10 }, "every task returned its 100 KB result")
        #expect(replies.withLock { $0.isEmpty }, "the replies wait for the hung cancel")
        // Ten results of 100 KB each are held by the router (in the deferred reply tasks), with
        // a budget of 350 KB: the budget must say so, as it does for replies by script.
        #expect(
            await eventually { router.heldBytes >= 350_000 },
            "\(10 * 100_000) bytes of replies wait in the router, but the budget holds \(router.heldBytes)")
        let log = TrafficLog(router)
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-10","task":"big"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(
            log.all.contains { $0.id == "p-10" && $0.outcome == "memory_budget_exceeded" },
            "an 11th call is admitted while 1 MB of replies waits against a 350 KB budget")

        hanging.releaseAll()
        #expect(await eventually { replies.withLock { $0.count } == 11 })
        await router.close()
    }

    /// Guard (passes): the same replies by script are charged while they wait behind the hung
    /// cancel, and the budget then refuses further calls. The contrast for finding 1.
    @Test(
        "Final replies by script, waiting behind a hung cancel, are charged to the byte budget (guard)",
        .timeLimit(.minutes(1)))
    func deferredScriptRepliesAreCharged() async throws {
        let finished = Mutex(0)
        let big = ClosureTask(name: "big") { (_: NoOptions, _: CallContext) -> String in
            defer { finished.withLock { $0 += 1 } }
            return String(repeating: "x", count: 100_000)
        }
        let router = try makeRouter([big], limits: BridgeLimits(maxHeldBytes: 350_000))
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)
        for index in 0..<10 {
            router.receive(
                .string(#"{"v":1,"kind":"call","id":"p-\#(index)","task":"big"}"#), from: .mainFrame(appOrigin))
        }
        #expect(await eventually { finished.withLock { $0 } == 10 })
        #expect(await eventually { router.heldBytes >= 10 * 100_000 }, "the waiting reply scripts are charged")
        hanging.releaseAll()
        #expect(await eventually { router.heldBytes == 0 })
        await router.close()
    }
}

extension PageCallCancelAttack12Tests {
    /// Finding 2 (a waiter registered after its generation ended waits for the old document's
    /// hung cancel). `CancelOrder.generationStarted` releases the waiters of earlier generations,
    /// but only those registered *by then*. The barrier is read under the lock in one step
    /// (`settle`'s `replyHandlerBarrier`, `send`'s `route`) and the waiter registered in another
    /// (`waitForCancels`), and `CancelOrder.wait` does not ask whether `generation` is still the
    /// current one: it registers whenever a cancel of that generation is in flight. For the
    /// reply-handler final reply the gap is a whole `Task` hop (`settle` starts a `Task` that calls
    /// `waitForCancels`). A navigation that lands in the gap leaves the waiter registered for a
    /// document that is gone, behind a cancel whose engine never returns: the reply handler is
    /// never answered (neither with the result nor with `nil`, as a navigation answers pending
    /// calls), the reply's result stays in memory, and the waiter leaks until close(). The same
    /// gap exists between `route` returning `.waitForCancels` and `waitForCancels` in `send`
    /// (then an `emit`, a progress or a reply sender of the old document hangs).
    ///
    /// The test takes the gap apart at the router's own steps (a test that held Swift's thread
    /// pool to widen the gap starved the suites running beside it): the barrier read for
    /// document A, a navigation, then the wait registered for A's generation.
    ///
    /// Suggested fix: register only while the generation is current — in `waitForCancels`, under
    /// the lock, `guard !state.isClosed, generation == state.generation` before
    /// `cancelOrder.wait` (or make `CancelOrder.wait` refuse a generation older than the newest it
    /// was told of in `generationStarted`).
    @Test(
        "A wait for the cancels of a document registered after a navigation ended it returns at once",
        .timeLimit(.minutes(1)))
    func navigationInGapStrandsDeferredReply() async throws {
        let router = try makeRouter()
        router.cancelWaitLimit = .seconds(60)
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)
        // What a reply or a script of document A read before the navigation.
        let (barrier, generation) = router.state.withLock { state in
            (state.cancelOrder.barrier(generation: state.generation), state.generation)
        }
        let upTo = try #require(barrier, "A's cancel is in flight")
        router.pageDidCommitNavigation()
        let returned = Locked(false)
        let waiting = Task {
            await router.waitForCancels(upTo: upTo, generation: generation)
            returned.set(true)
        }
        // Bounded: on correct code the wait returns at once.
        let answered = await DocumentWaitAttackTests.within(.seconds(3)) { returned.value }
        #expect(
            answered,
            "the wait registered after the navigation released the waiters, behind a cancel that never returns")
        hanging.releaseAll()
        await waiting.value
        await router.close()
    }
}

extension PageCallCancelAttack12Tests {
    /// Finding 3 (the scripts of calls native gave up on stay registered as waiters, without
    /// bound). A native-to-page call's script that meets a cancel in flight waits for it in
    /// `send` (`.waitForCancels`); when native then gives up on the call (its timeout, the Swift
    /// task's cancellation), `failPageCall` settles it (not submitted: no cancel, correct) but
    /// nothing ends the wait: the script, its options and the sending `Task` stay in
    /// `CancelOrder.waiters` until the old cancel's evaluation returns — with a hung web process,
    /// never (until a navigation or close()). `maxUnansweredPageCalls` does not bound them (the
    /// calls are answered), nor does any count or deadline (``DocumentWait`` has both). An app
    /// that retries a call with a timeout against a page that hangs grows the router by one
    /// waiter and one payload per attempt. The same holds for the progress of a call that settled
    /// meanwhile: its `progress` await does not end either, so the task's work does not end and
    /// its body's bytes stay charged.
    ///
    /// Suggested fix: end the wait of a script whose reason to go has ended — have
    /// `failPageCall` (and the settling of a call, for progress) resume the waiter of its script,
    /// which then routes again and is dropped by `handOver` (for example key the waiter by call
    /// id, or register the script's call id with the waiter); or bound the waiters as
    /// `DocumentWait` bounds held scripts.
    @Test(
        "The scripts of native-to-page calls that timed out while waiting for a hung cancel stop waiting",
        .timeLimit(.minutes(1)))
    func givenUpCallScriptsLeakAsWaiters() async throws {
        let router = try makeRouter()
        router.cancelWaitLimit = .seconds(60)  // released by the call's end, not the limit
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)

        let attempts = 40
        let blob = String(repeating: "y", count: 10_000)
        for _ in 0..<attempts {
            let error = await #expect(throws: BridgeError.self) {
                _ = try await router.callPage("save", options: ["blob": blob], timeout: .milliseconds(10))
            }
            #expect(error?.code == "timeout")
        }
        // None of them left the router (correct: no cancel needed, never run on the page).
        let calls = hanging.scripts.filter { $0.contains("\"kind\":\"call\"") }
        #expect(calls.count == 1, "only n-1 reached the engine")
        // Every one of them is answered, and its script will never be sent: nothing should wait.
        let drained = await DocumentWaitAttackTests.within(.seconds(2)) {
            router.state.withLock { $0.cancelOrder.waiting } == 0
        }
        let waiting = router.state.withLock { $0.cancelOrder.waiting }
        #expect(
            drained,
            "\(waiting) scripts (\(waiting * blob.utf8.count) bytes of options) of calls that already threw still wait for the hung cancel"
        )

        hanging.releaseAll()
        #expect(await eventually { router.state.withLock { $0.cancelOrder.waiting } == 0 })
        #expect(hanging.scripts.filter { $0.contains("\"kind\":\"call\"") }.count == 1, "dropped, never sent")
        await router.close()
    }
}

extension PageCallCancelAttack12Tests {
    /// Finding 4 (a call's final reply through a reply handler still overtakes the cancel of the
    /// call its task gave up on, when the call is settled by its timeout). A page-to-native
    /// task awaits `callPage` (handed over to the page); the *page* call times out first. `settle`
    /// (`.timedOut`) cancels the work, whose `callPage` cancellation handler runs `failPageCall`
    /// right there: the native-to-page call throws and its cancel is numbered in flight. Then
    /// `settle` writes the `timeout` reply through the reply handler at once:
    /// `replyHandlerBarrier` is only consulted for `.workFinished`, and it was read under the lock
    /// *before* `work?.cancel()` numbered the cancel anyway. The page has its call's `timeout`
    /// while the native-to-page call's handler runs on, not yet aborted — the order 73a5b24 gives
    /// the task's own final reply (finding 4 of attack 11). The same reply by script waits
    /// (`send` reads the barrier after the cancel was numbered): the two routes disagree.
    ///
    /// Suggested fix: in `settle`, read the barrier after cancelling the work (a second short
    /// lock: `state.withLock { $0.cancelOrder.barrier(generation:) }` once `work?.cancel()`
    /// returned), for every settling event of a call with a reply handler, not only
    /// `.workFinished`.
    @Test(
        "A call that times out while its task awaits callPage: its reply-handler reply reaches the page after the cancel",
        .timeLimit(.minutes(1)))
    func timeoutReplyOvertakesCancel() async throws {
        let parent = ClosureTask(name: "parent") { (_: NoOptions, _: CallContext) -> String in
            // The page never answers; the page call's own timeout ends this.
            _ = try await router12.value?.callPage("child", options: ["item": 1], timeout: nil)
            return "done"
        }
        let router = try makeRouter([parent], defaultTimeout: .milliseconds(200))
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        router12.set(router)
        defer { router12.set(nil) }
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-1","task":"parent"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { hanging.scripts.contains { $0.contains("\"kind\":\"call\"") } }, "n-1 left")
        #expect(await eventually { hanging.hasCancel("n-1") }, "the page call timed out; n-1's cancel is in the engine")
        let overtook = await DocumentWaitAttackTests.within(.milliseconds(500)) { replies.withLock { !$0.isEmpty } }
        #expect(
            !overtook,
            "the call's timeout reply reached the page before the cancel of the call its task gave up on: \(replies.withLock { $0 })"
        )
        hanging.releaseAll()
        #expect(await eventually { replies.withLock { $0.count == 1 } })
        await router.close()
    }

    /// Guard for finding 4 (passes): the same timeout reply by script waits for the cancel.
    @Test(
        "A call that times out while its task awaits callPage: its reply by script reaches the page after the cancel (guard)",
        .timeLimit(.minutes(1)))
    func timeoutScriptReplyWaitsForCancel() async throws {
        let parent = ClosureTask(name: "parent") { (_: NoOptions, _: CallContext) -> String in
            _ = try await router12b.value?.callPage("child", options: ["item": 1], timeout: nil)
            return "done"
        }
        let router = try makeRouter([parent], defaultTimeout: .milliseconds(200))
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        router12b.set(router)
        defer { router12b.set(nil) }
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        router.receive(.string(#"{"v":1,"kind":"call","id":"p-1","task":"parent"}"#), from: .mainFrame(appOrigin))
        let replied = { hanging.scripts.contains { $0.contains("\"p-1\"") && $0.contains("\"kind\":\"reply\"") } }
        #expect(await eventually { hanging.hasCancel("n-1") })
        let overtook = await DocumentWaitAttackTests.within(.milliseconds(500)) { replied() }
        #expect(!overtook)
        hanging.releaseAll()
        #expect(await eventually { replied() })
        await router.close()
    }
}

/// The routers of ``PageCallCancelAttack12Tests``' timeout tests, for their tasks.
private let router12 = Locked<BridgeRouter?>(nil)
private let router12b = Locked<BridgeRouter?>(nil)

extension PageCallCancelAttack12Tests {
    /// Finding 3, progress: the progress of a call that settled meanwhile keeps waiting for a hung
    /// cancel. A task's `progress` meets a cancel in flight and waits (`send`,
    /// `.waitForCancels`); the page then cancels the call (settled at once, 7c61139; its work is
    /// cancelled). The progress will never be sent (`handOver` drops progress of a settled call),
    /// but its wait is a plain continuation that neither the call's settling nor the work's
    /// cancellation ends: the work stays suspended in `progress` until the old cancel's
    /// evaluation returns, and the call's body stays charged to the byte budget
    /// (`runWork` releases `heldBytes` only when the work ends). Each such call leaks its
    /// work and its bytes for as long as the engine hangs; enough of them exhaust the budget
    /// and the page's later calls are refused `memory_budget_exceeded`.
    ///
    /// Suggested fix: as for finding 3 — resume the progress's waiter when its call settles (the
    /// progress then routes again and is dropped), or make the wait cancellable
    /// (`withTaskCancellationHandler` removing the waiter).
    @Test(
        "A call the page cancelled while its progress waits for a hung cancel: its work ends and its bytes are released",
        .timeLimit(.minutes(1)))
    func progressOfCancelledCallWaitsForHungCancel() async throws {
        let progressed = Counter()
        let streamer = ClosureTask(name: "streamer") { (_: JSONValue, context: CallContext) -> Int in
            progressed.increment()
            try await context.progress(1)
            return 1
        }
        let router = try makeRouter([streamer])
        router.cancelWaitLimit = .seconds(60)  // released by the call's end, not the limit
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)
        router.receive(
            .string(
                #"{"v":1,"kind":"call","id":"p-1","task":"streamer","options":"\#(String(repeating: "z", count: 50_000))"}"#
            ),
            from: .mainFrame(appOrigin))
        #expect(await eventually { progressed.value == 1 && router.state.withLock { $0.cancelOrder.waiting } == 1 })
        #expect(router.heldBytes > 50_000)
        router.receive(.string(#"{"v":1,"kind":"cancel","id":"p-1"}"#), from: .mainFrame(appOrigin))
        let released = await DocumentWaitAttackTests.within(.seconds(2)) { router.heldBytes == 0 }
        #expect(
            released,
            "the cancelled call's work still waits in progress() for the hung cancel; \(router.heldBytes) bytes stay charged"
        )
        hanging.releaseAll()
        #expect(await eventually { router.heldBytes == 0 })
        #expect(!hanging.scripts.contains { $0.contains("\"kind\":\"progress\"") }, "the progress is dropped")
        await router.close()
    }
}

extension PageCallCancelAttack12Tests {
    /// Finding 5, native side (the shim side: js/test/attack12-early-cancels.test.js). Since
    /// d31ccb6 the shim keeps a cancel whose call it does not know as an *early* cancel, and
    /// drops the next call with that id unanswered. A cancel that races its call's answer (native
    /// timed out while the page's reply was on its way) arrives after the call finished and is
    /// kept so. Within one router ids never repeat; but every router numbers from `n-1`, and a
    /// second router can be attached to the same controller and document (R24: detach, attach
    /// another router, no reload). Its first calls then meet the old router's stale early
    /// cancels: never run, never answered, the native `callPage` waits out its whole timeout
    /// (forever with `timeout: nil`).
    ///
    /// Suggested fix: ids unique across routers (a random per-router prefix), or a shim that
    /// drops a cancel for an id it finished instead of keeping it.
    @Test("Two routers never give a native-to-page call the same id", .timeLimit(.minutes(1)))
    func routersReuseCallIDs() async throws {
        var ids: [String] = []
        for _ in 0..<2 {
            let router = try makeRouter()
            let channel = RecordingChannel()
            router.connect(channel.channel)
            let call = Task { try await router.callPage("save", timeout: nil) }
            #expect(await eventually { (channel.page.withLock { $0 } + channel.document.withLock { $0 }).count == 1 })
            let script = (channel.page.withLock { $0 } + channel.document.withLock { $0 })[0]
            if let range = script.range(of: #""id":"[^"]*""#, options: .regularExpression) {
                ids.append(String(script[range]))
            }
            await router.close()
            _ = try? await call.value
        }
        #expect(ids.count == 2)
        #expect(
            Set(ids).count == 2,
            "both routers called the page with \(ids.first ?? "?"): a stale early cancel of the first swallows the second's call"
        )
    }
}

extension PageCallCancelAttack12Tests {
    /// Guard (passes): close() while a reply-handler final reply is deferred behind a hung cancel
    /// returns, and the reply handler is answered exactly once (with the task's result), never
    /// again by close()'s own settling.
    @Test(
        "close() while a reply-handler final reply waits for a hung cancel: answered exactly once (guard)",
        .timeLimit(.minutes(1)))
    func closeRacesDeferredReply() async throws {
        let quick = ClosureTask(name: "quick") { (_: NoOptions, _: CallContext) -> String in "result" }
        let router = try makeRouter([quick])
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-1","task":"quick"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { router.state.withLock { $0.cancelOrder.waiting } == 1 }, "the reply waits")
        await router.close()
        #expect(await eventually { replies.withLock { $0.count } == 1 })
        hanging.releaseAll()
        _ = await DocumentWaitAttackTests.within(.milliseconds(200)) { replies.withLock { $0.count } > 1 }
        let all = replies.withLock { $0 }
        #expect(all.count == 1 && all[0]?.contains("\"result\"") == true, "\(all)")
    }

    /// Guard (passes): a page cancel settles its call synchronously inside `receive`; the
    /// cancelled call's reply handler is answered there, and a reply handler that re-enters the
    /// router (the page posts its next call from it) neither deadlocks nor answers twice.
    @Test(
        "A page cancel whose reply handler re-enters receive: no deadlock, one answer each (guard)",
        .timeLimit(.minutes(1)))
    func pageCancelReentrantReplyHandler() async throws {
        let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        let router = try makeRouter([slow, echoTask])
        router.connect(RecordingChannel().channel)
        final class Answers: Sendable { let byID = Mutex<[String: [String]]>([:]) }
        let answers = Answers()
        @Sendable func handler(_ id: String) -> ReplyHandler {
            ReplyHandler(carriesFinalReplies: true) { json in
                answers.byID.withLock { $0[id, default: []].append(json ?? "nil") }
                if id == "p-1" {
                    router.receive(
                        .string(#"{"v":1,"kind":"call","id":"p-2","task":"echo","options":7}"#),
                        from: .mainFrame(appOrigin), replyHandler: handler("p-2"))
                    router.receive(.string(#"{"v":1,"kind":"cancel","id":"p-1"}"#), from: .mainFrame(appOrigin))
                }
            }
        }
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-1","task":"slow"}"#), from: .mainFrame(appOrigin),
            replyHandler: handler("p-1"))
        router.receive(.string(#"{"v":1,"kind":"cancel","id":"p-1"}"#), from: .mainFrame(appOrigin))
        #expect(await eventually { answers.byID.withLock { $0["p-2"]?.count == 1 } })
        let all = answers.byID.withLock { $0 }
        #expect(all["p-1"]?.count == 1 && all["p-1"]?[0].contains("cancelled") == true, "\(all)")
        #expect(all["p-2"]?.count == 1 && all["p-2"]?[0].contains("7") == true, "\(all)")
        await router.close()
        #expect(answers.byID.withLock { $0["p-1"]?.count } == 1)
    }
}
