import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// Attack 11 on the cancels of native-to-page calls (d31ccb6: a handed-over call's cancel goes out
/// at once, counted in ``RouterState/cancelsInFlight``; every later `send` waits until *no* cancel
/// is in flight). The wait is global and unbounded: it is tied to the engine *returning* from each
/// cancel's evaluation, for every script of every later generation and channel, and for the final
/// replies close() sends (findings 1-3); and a final reply through a reply handler does not wait at
/// all (finding 4).
@Suite("Router: attacking the cancels of native-to-page calls (attack 11)")
struct PageCallCancelAttack11Tests {
    static let documentA = String(repeating: "a1", count: 16)
    static let documentB = String(repeating: "b2", count: 16)

    /// A channel whose evaluation of the cancel of a listed call (`n-1`: its id without the
    /// router's tag) does not return until the
    /// test releases it (a hung or swapped-out web process, a document stuck in a synchronous
    /// loop); every other script is evaluated at once.
    final class HangingChannel: Sendable {
        let log = Mutex<[String]>([])
        let hung = Mutex<Set<String>>([])
        init(hanging ids: Set<String>) { hung.withLock { $0 = ids } }
        var channel: PageChannel {
            PageChannel(
                evaluate: { script in await self.evaluate(script) },
                evaluateForDocument: { script in await self.evaluate(script) })
        }
        private func evaluate(_ script: String) async {
            log.withLock { $0.append(script) }
            guard script.contains("\"kind\":\"cancel\"") else { return }
            while hung.withLock({ ids in ids.contains { script.contains("\"\($0)-") } }) {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        func release(_ id: String) { _ = hung.withLock { $0.remove(id) } }
        func releaseAll() { hung.withLock { $0 = [] } }
        var scripts: [String] { log.withLock { $0 } }
        func hasCancel(_ id: String) -> Bool {
            scripts.contains { $0.contains("\"kind\":\"cancel\"") && $0.contains("\"\(id)-") }
        }
    }

    /// Puts the cancel of call n-1 into the engine, whose evaluation does not return: the call
    /// is handed to the engine, then native gives up on it (its Swift task is cancelled; a
    /// timeout could fire before the call left the router on a slow run, and then no cancel
    /// goes out at all).
    static func hangACancel(_ router: BridgeRouter, _ hanging: HangingChannel) async throws {
        let call = Task { try await router.callPage("save", options: ["item": 1], timeout: nil) }
        #expect(await eventually { hanging.scripts.contains { $0.contains("\"kind\":\"call\"") } })
        call.cancel()
        let error = await #expect(throws: BridgeError.self) { _ = try await call.value }
        #expect(error?.code == "cancelled")
        #expect(await eventually { hanging.hasCancel("n-1") }, "the cancel is in the engine, which hangs")
    }

    /// Finding 1 (one hung cancel strands all later traffic, of every later document and
    /// channel). A call times out on a page that does not answer; its cancel goes to the engine,
    /// whose evaluation does not return (the page hangs). `cancelsInFlight` stays 1 until it
    /// does, and `RouterState.route` answers `.waitForCancels` to every script that is not a
    /// cancel, whatever its generation or channel. The app navigates (a new generation, its
    /// document named) and connects a fresh channel: an event for the new document never leaves
    /// the router, nor does any reply, progress or call of the new document. Before d31ccb6 a
    /// hung evaluation held up only its own script. The wait should be bounded to the generation
    /// (and channel) of the cancel: a script of a later generation cannot be overtaken by a
    /// cancel of an earlier one (that cancel is for a document that is gone).
    @Test(
        "A cancel whose evaluation never returns does not hold up the scripts of the next document",
        .timeLimit(.minutes(2)))
    func hungCancelStrandsNextDocument() async throws {
        let router = try makeRouter()
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)

        // The app gives up on the hung document: a new one commits and names itself, and a new
        // channel is connected.
        router.pageDidCommitNavigation()
        router.pageDidAnnounceDocument(Self.documentB)
        let fresh = RecordingChannel()
        router.connect(fresh.channel)
        let emitter = Task { try await router.emit("fresh", data: 1) }
        let delivered = await eventually {
            (fresh.page.withLock { $0 } + fresh.document.withLock { $0 }).contains { $0.contains("\"fresh\"") }
        }
        #expect(delivered, "the new document's event waits for the old document's hung cancel")

        hanging.releaseAll()
        try await emitter.value
        await router.close()
    }

    /// Finding 2 (close() hangs behind a hung cancel of a document that is gone). close() settles
    /// the pending page-to-native calls and sends their final replies through `send`, which waits
    /// for the cancels in flight (`RouterState.route` looks neither at `isClosed` nor at the
    /// cancel's generation). A call to document A times out and its cancel's evaluation does not
    /// return (A's web process hangs); the app navigates to document B on a fresh channel, and B
    /// has a call pending (a reply by script). close() never returns: its final reply for B waits
    /// for A's cancel. Before d31ccb6 the reply went to B's channel at once. close() must return
    /// whatever an old document's engine does.
    @Test("close() returns while a cancel of a previous document hangs", .timeLimit(.minutes(2)))
    func closeHangsBehindHungCancel() async throws {
        let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
            try await Task.sleep(for: .seconds(60))  // until close() cancels it
            return 1
        }
        let router = try makeRouter([slow])
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        try await Self.hangACancel(router, hanging)

        router.pageDidCommitNavigation()
        router.pageDidAnnounceDocument(Self.documentB)
        let fresh = RecordingChannel()
        router.connect(fresh.channel)
        // Document B calls a task (no reply handler: its final reply is a script).
        router.receive(.string(#"{"v":1,"kind":"call","id":"p-1","task":"slow"}"#), from: .mainFrame(appOrigin))
        let closed = Locked(false)
        let closing = Task {
            await router.close()
            closed.set(true)
        }
        #expect(await eventually { closed.value }, "close() waits for the old document's hung cancel")
        hanging.releaseAll()
        await closing.value
        let scripts = fresh.page.withLock { $0 } + fresh.document.withLock { $0 }
        #expect(scripts.contains { $0.contains("\"p-1\"") }, "B's final reply went out")
    }

    /// Finding 3 (a script waits for cancels that came after it). `waitForCancels` waits until
    /// `cancelsInFlight` is 0, not until the cancels counted *before* the script was sent were
    /// evaluated. Here an event is sent while call 1's cancel is on its way; then call 2 is
    /// cancelled too. Once call 1's cancel was evaluated the event owes nothing to call 2's cancel
    /// (call 2 threw after the event was sent), yet it keeps waiting: under a steady stream of
    /// overlapping cancels (calls with short timeouts to a slow page) the count never reaches 0 and
    /// every event, reply and progress starves for as long as the stream lasts. A script should
    /// wait only for the cancels in flight when it was sent (a ticket per cancel, waiters keyed by
    /// the highest ticket they saw).
    @Test(
        "A script sent while one cancel is in flight does not wait for a cancel made after it",
        .timeLimit(.minutes(2)))
    func scriptWaitsForLaterCancel() async throws {
        let router = try makeRouter()
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        let hanging = HangingChannel(hanging: ["n-1", "n-2"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        // One after the other, so that the first is n-1 (two tasks started together may take
        // their numbers in either order); given up on by a cancel, not a timeout that could fire
        // before the call was handed over on a slow run.
        let callScripts = { hanging.scripts.filter { $0.contains("\"kind\":\"call\"") }.count }
        let first = Task { try await router.callPage("save", options: ["item": 1], timeout: nil) }
        #expect(await eventually { callScripts() == 1 })
        let second = Task { try await router.callPage("save", options: ["item": 2], timeout: nil) }
        // Both calls were handed to the engine (submitted).
        #expect(await eventually { callScripts() == 2 })
        first.cancel()
        let error = await #expect(throws: BridgeError.self) { _ = try await first.value }
        #expect(error?.code == "cancelled")
        #expect(await eventually { hanging.hasCancel("n-1") }, "call 1's cancel is in flight")

        let emitter = Task { try await router.emit("after-first", data: 1) }
        // The event waits for call 1's cancel (correct); give its sender time to register its
        // wait (bounded: nothing may go out while call 1's cancel hangs).
        _ = await DocumentWaitAttackTests.within(.milliseconds(200)) {
            hanging.scripts.contains { $0.contains("\"after-first\"") }
        }
        #expect(!hanging.scripts.contains { $0.contains("\"after-first\"") })
        second.cancel()
        _ = try? await second.value
        #expect(await eventually { hanging.hasCancel("n-2") }, "call 2's cancel is in flight")

        hanging.release("n-1")  // call 1's cancel was evaluated
        let delivered = await eventually { hanging.scripts.contains { $0.contains("\"after-first\"") } }
        #expect(delivered, "the event sent before call 2 threw waits for call 2's cancel as well")

        hanging.releaseAll()
        try await emitter.value
        await router.close()
    }
}

extension PageCallCancelAttack11Tests {
    /// Finding 4 (a task's final reply through the reply handler overtakes the cancel). A
    /// page-to-native task calls the page (`callPage`), gives up on it (here its timeout; a
    /// cancel, too) and then returns. Its final reply goes through the message's reply handler
    /// (the route of WebKitGTK's relay and `WKScriptMessageHandlerWithReply`, the shipped
    /// adapters), which `writeFinalReply` answers at once: it never passes `send`, so it does not
    /// wait for `cancelsInFlight`. The page has the task's answer ("sync done") while the native
    /// call's handler still runs, not yet aborted: the ordering d31ccb6 gives scripts (an event or
    /// progress sent instead would wait for the cancel) does not hold for the reply. The reply
    /// handler's answer should wait for the cancels in flight as a script does.
    @Test(
        "A task that gave up on a native-to-page call: its reply-handler reply reaches the page after the call's cancel",
        .timeLimit(.minutes(1)))
    func replyHandlerReplyOvertakesCancel() async throws {
        let sync = ClosureTask(name: "sync") { (_: NoOptions, _: CallContext) -> String in
            // The page does not answer: it times out and its cancel goes to the engine.
            _ = try? await router11.value?.callPage("save", options: ["item": 1], timeout: .seconds(2))
            return "done"
        }
        let router = try makeRouter([sync])
        router.cancelWaitLimit = .seconds(60)  // the hung cancel outlasts the test
        router11.set(router)
        defer { router11.set(nil) }
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        // As WebKitGTK's relay posts a call: with a reply path that carries final replies.
        let replies = Mutex<[String?]>([])
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"p-1","task":"sync"}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { hanging.hasCancel("n-1") }, "the cancel is on its way (the engine is slow)")
        // Bounded: on correct code the reply waits for the cancel, which the engine holds.
        let overtook = await DocumentWaitAttackTests.within(.milliseconds(500)) { replies.withLock { !$0.isEmpty } }
        #expect(
            !overtook,
            "the task's reply reached the page before the cancel of the call it gave up on: \(replies.withLock { $0 })")
        hanging.releaseAll()
        #expect(await eventually { replies.withLock { !$0.isEmpty } })
        await router.close()
    }
}

/// The router of ``PageCallCancelAttack11Tests/replyHandlerReplyOvertakesCancel()``, for its task.
private let router11 = Locked<BridgeRouter?>(nil)
