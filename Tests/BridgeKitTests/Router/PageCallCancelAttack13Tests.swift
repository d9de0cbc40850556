import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// Attack 13 on the ordered cancels of native-to-page calls (a07e696: waits registered only
/// while their generation is current, bounded by ``CancelOrder/limit``; a script whose call
/// settles stops waiting (`ended`); deferred reply-handler replies charged to the budget and
/// following the cancels a cancelled work made).
@Suite("Router: attacking the ordered cancels of native-to-page calls (attack 13)")
struct PageCallCancelAttack13Tests {
    typealias HangingChannel = PageCallCancelAttack11Tests.HangingChannel
    static let documentA = String(repeating: "a1", count: 16)

    /// Finding 1 (a call settled by its progress limit leaves its earlier progress waiting).
    /// a07e696 ends the wait of a call's progress when the call settles — but only in
    /// `BridgeRouter.settle` (`cancelOrder.ended(progressKey)`). A call can also settle in
    /// `sendProgress` (ReplyPipeline.swift): the value past `maxProgressPerCall` makes
    /// `handle(.progress)` answer `.settle`, and that branch cancels the timer and the work and
    /// sends the final reply itself, never calling `ended`. A progress value of the same call that
    /// waits for a hung cancel (sent from another child task of the work, or from any holder of
    /// the `CallContext`) then keeps waiting the whole ``CancelOrder/limit`` although `handOver`
    /// will drop it: its `progress` await does not end, the work does not end, and the body's
    /// bytes stay charged (the exact shape of attack 12's finding 3, progress, for another way
    /// to settle).
    ///
    /// Suggested fix: route every settling through one place that runs `ended` — in
    /// `sendProgress`'s `.settle` branch take `cancelOrder.ended(progressKey(call.id))` under the
    /// same lock as `handle(.progress)` and resume those waiters (better: make `ended` part of
    /// `RouterState.handle` whenever it returns `.settle`).
    @Test(
        "A call settled by its progress limit: its progress waiting for a hung cancel stops waiting",
        .timeLimit(.minutes(1)))
    func progressLimitSettleLeavesProgressWaiting() async throws {
        let context = Locked<CallContext?>(nil)
        let workEnded = Locked(false)
        let streamer = ClosureTask(name: "streamer") { (_: JSONValue, ctx: CallContext) -> Int in
            defer { workEnded.set(true) }
            context.set(ctx)
            try? await ctx.progress(1)
            return 1
        }
        let router = try makeRouter([streamer], limits: BridgeLimits(maxProgressPerCall: 1))
        router.cancelWaitLimit = .seconds(60)  // released by the call's end, not the limit
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await PageCallCancelAttack12Tests.hangACancel(router, hanging)
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(
                #"{"v":1,"kind":"call","id":"p-1","task":"streamer","options":"\#(String(repeating: "z", count: 50_000))"}"#
            ),
            from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(
            await eventually { context.value != nil && router.state.withLock { $0.cancelOrder.waiting } == 1 },
            "progress 1 waits for the hung cancel")
        // The second value is past the limit: it settles the call (progress_limit_exceeded).
        let second = await #expect(throws: BridgeError.self) { try await context.value?.progress(2) }
        #expect(second?.code == "progress_limit_exceeded")
        let ended = await DocumentWaitAttackTests.within(.seconds(3)) { workEnded.value }
        #expect(
            ended,
            "the call settled, but its first progress still waits for the hung cancel: the work does not end, \(router.heldBytes) bytes stay charged"
        )
        hanging.releaseAll()
        #expect(await eventually { workEnded.value && router.heldBytes == 0 })
        #expect(!hanging.scripts.contains { $0.contains("\"kind\":\"progress\"") }, "the progress is dropped")
        await router.close()
    }

    /// Finding 2 (the final reply of a call settled by its progress limit overtakes the cancel
    /// its cancelled work made, through a reply handler). a07e696 makes `settle` read the
    /// barrier again after `work?.cancel()` for a call with a reply handler, because cancelling
    /// the work may make it give up a `callPage` (attack 12 finding 4, for timeouts and page
    /// cancels). `sendProgress`'s own `.settle` branch (the value past `maxProgressPerCall`) does
    /// the same `work?.cancel()` but sends the `progress_limit_exceeded` reply with
    /// `sendFinalReply`, which passes no `afterCancels`: the reply handler is answered at once,
    /// while the cancel of the native-to-page call the work just gave up on is still on its way
    /// (here: its evaluation hangs). The page sees its call fail while the native-to-page call's
    /// handler runs on, not yet aborted. The same reply by script waits (`send`).
    ///
    /// Suggested fix: settle the progress-limit case through `settle(_:_:by:)` (or share its
    /// tail: cancel the work, then read `replyHandlerBarrier` and pass it as `afterCancels`).
    @Test(
        "A call settled by its progress limit while its task awaits callPage: its reply-handler reply follows the cancel",
        .timeLimit(.minutes(1)))
    func progressLimitReplyOvertakesCancel() async throws {
        let parent = ClosureTask(name: "parent") { (_: NoOptions, ctx: CallContext) -> String in
            async let child: JSONValue? = try? await router13.value?.callPage(
                "child", options: ["item": 1], timeout: nil)
            // Wait until the call is in the page (its script left), then go past the progress limit.
            while router13.value?.state.withLock({ $0.pageCalls.values.contains { $0.submitted } }) != true {
                try await Task.sleep(for: .milliseconds(2))
            }
            try? await ctx.progress(1)
            try? await ctx.progress(2)  // past the limit: settles the call, cancels this work
            _ = await child
            return "done"
        }
        let router = try makeRouter([parent], limits: BridgeLimits(maxProgressPerCall: 1))
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        router13.set(router)
        defer { router13.set(nil) }
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-1","task":"parent"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { hanging.hasCancel("n-1") }, "the work was cancelled; n-1's cancel is in the engine")
        let overtook = await DocumentWaitAttackTests.within(.milliseconds(500)) { replies.withLock { !$0.isEmpty } }
        #expect(
            !overtook,
            "the call's progress_limit_exceeded reply reached the page before the cancel of the call its task gave up on: \(replies.withLock { $0 })"
        )
        hanging.releaseAll()
        #expect(await eventually { replies.withLock { $0.count == 1 } })
        #expect(await eventually { router.heldBytes == 0 })
        await router.close()
    }
}

extension PageCallCancelAttack13Tests {
    /// Finding 3 (a script whose call settled before its wait registered waits the whole limit).
    /// `ended(owner)` releases only the waiters registered *by then*. `send` reads the barrier in
    /// `route` under one lock and registers the wait in `waitForCancels` under another, and
    /// `waitForCancels` / `CancelOrder.wait` never ask whether the owner is still live (the
    /// native-to-page call still in `pageCalls` and not submitted; the progress's call not
    /// settled). For a native-to-page call the gap is a whole `Task` hop: `callPage` registers the
    /// call and starts `Task { send(outgoing) }`; a timeout or the caller's cancellation that
    /// lands before that task routes runs `failPageCall` → `ended` (nothing registered yet), and
    /// the script then registers and waits behind a hung cancel for the full `CancelOrder.limit`
    /// although `handOver` will drop it — the shape a07e696 fixed for attack 12 finding 3 (the
    /// script, its options and its sending `Task` held, and here nothing bounds them but the
    /// limit). The same gap exists for progress (`sendProgress` checks `handle(.progress)`,
    /// then `send`). As attack 12 finding 2's test does, this one takes the gap apart at the
    /// router's own steps: the barrier read while the call is live, the call's timeout, then the
    /// wait registered with the call's owner key.
    ///
    /// Suggested fix: check the owner under the registering lock — in `waitForCancels`, refuse
    /// (resume at once) when the owner has ended: for `.call`, `pageCalls[id]` gone; for
    /// `.progress`, `call.isSettled` (pass the `OutgoingScript`, or run `handOver`'s test without
    /// its side effect); or record ended owners per generation in `CancelOrder`.
    @Test(
        "A native-to-page call's script whose call timed out before its wait registered does not wait",
        .timeLimit(.minutes(1)))
    func ownerEndedBeforeRegistrationWaitsFullLimit() async throws {
        let router = try makeRouter()
        router.cancelWaitLimit = .seconds(60)  // released by the call's end, not the limit
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await PageCallCancelAttack12Tests.hangACancel(router, hanging)
        // What `send` of call n-2's script reads in `route` (its call is live), before its wait registers.
        let (barrier, generation, tag) = router.state.withLock { state in
            (state.cancelOrder.barrier(generation: state.generation), state.generation, state.pageCallTag)
        }
        let upTo = try #require(barrier, "n-1's cancel is in flight")
        // n-2 times out in the gap (here: before anything of it registered).
        let error = await #expect(throws: BridgeError.self) {
            _ = try await router.callPage("save", options: ["item": 2], timeout: .milliseconds(10))
        }
        #expect(error?.code == "timeout")
        #expect(await eventually { router.state.withLock { $0.cancelOrder.waiting } == 0 }, "its script was let go")
        #expect(router.state.withLock { $0.pageCalls.isEmpty })
        // A script of n-2 that had read the barrier before the timeout registers now.
        let returned = Locked(false)
        let waiting = Task {
            await router.waitForCancels(
                upTo: upTo, generation: generation, owner: ScriptOwner.pageCall("n-2-\(tag)"))
            returned.set(true)
        }
        let released = await DocumentWaitAttackTests.within(.seconds(3)) { returned.value }
        #expect(
            released,
            "the script of call n-2, which already threw, waits for the hung cancel (\(router.state.withLock { $0.cancelOrder.waiting }) waiting)"
        )
        hanging.releaseAll()
        await waiting.value
        await router.close()
    }
}

extension PageCallCancelAttack13Tests {
    /// Finding 4 (a synchronous task's reply through a reply handler overtakes the cancel of a
    /// call native gave up on before it ran; the same reply by script waits). After `callPage`
    /// threw (its cancel numbered, in flight), a07e696 orders every later reply of the generation
    /// behind that cancel: a reply script in `send`, an asynchronous task's reply-handler reply
    /// through `writeFinalReply(... afterCancels:)` (`settle` reads `replyHandlerBarrier`). A
    /// ``SynchronousBridgeTask``'s reply goes through `sendSynchronousReply`, which calls
    /// `writeFinalReply(json:...)` with no `afterCancels`: the reply handler is answered at once.
    /// A synchronous task reading state the app set when `callPage` threw ("the save was
    /// cancelled") tells the page so while the page's handler of that call has not been aborted
    /// yet — the order the router promises for every other reply. By script (no reply handler)
    /// the same synchronous reply waits for the cancel, so the two routes disagree.
    ///
    /// Suggested fix: in `sendSynchronousReply`, read `cancelOrder.barrier(generation:)` under the
    /// lock for a `.replyHandler` route and pass it as `afterCancels` (only then is the reply
    /// deferred: the usual call, with no cancel in flight, is still answered before `receive`
    /// returns); or document that a synchronous task's reply-handler reply is not ordered.
    @Test(
        "A synchronous task's reply-handler reply after callPage threw reaches the page after that call's cancel",
        .timeLimit(.minutes(1)))
    func synchronousReplyOvertakesCancel() async throws {
        let status = SynchronousClosureTask(name: "status") { (_: NoOptions, _: CallContext) -> String in "cancelled" }
        let router = try makeRouter([status])
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await PageCallCancelAttack12Tests.hangACancel(router, hanging)
        // By script: the reply waits for the cancel (the guard half).
        router.receive(.string(#"{"v":1,"kind":"call","id":"p-1","task":"status"}"#), from: .mainFrame(appOrigin))
        // Through a reply handler.
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-2","task":"status"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        let scriptOvertook = await DocumentWaitAttackTests.within(.milliseconds(300)) {
            hanging.scripts.contains { $0.contains("\"p-1\"") && $0.contains("\"kind\":\"reply\"") }
        }
        #expect(!scriptOvertook, "by script the synchronous reply waits for the cancel")
        #expect(
            replies.withLock { $0.isEmpty },
            "the synchronous task's reply-handler reply reached the page before the cancel of the call native gave up on: \(replies.withLock { $0 })"
        )
        hanging.releaseAll()
        #expect(await eventually { replies.withLock { $0.count } == 1 })
        #expect(await eventually { router.heldBytes == 0 })
        await router.close()
    }
}

/// The router of ``PageCallCancelAttack13Tests``' tasks.
private let router13 = Locked<BridgeRouter?>(nil)
