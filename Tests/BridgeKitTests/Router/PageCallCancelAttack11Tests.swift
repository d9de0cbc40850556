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
/// replies close() sends.
@Suite("Router: attacking the cancels of native-to-page calls (attack 11)")
struct PageCallCancelAttack11Tests {
    static let documentA = String(repeating: "a1", count: 16)
    static let documentB = String(repeating: "b2", count: 16)

    /// A channel whose evaluation of the cancel of a listed call id does not return until the
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
            while hung.withLock({ ids in ids.contains { script.contains("\"\($0)\"") } }) {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        func release(_ id: String) { _ = hung.withLock { $0.remove(id) } }
        func releaseAll() { hung.withLock { $0 = [] } }
        var scripts: [String] { log.withLock { $0 } }
        func hasCancel(_ id: String) -> Bool {
            scripts.contains { $0.contains("\"kind\":\"cancel\"") && $0.contains("\"\(id)\"") }
        }
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
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        let error = await #expect(throws: BridgeError.self) {
            _ = try await router.callPage("save", options: ["item": 1], timeout: .milliseconds(50))
        }
        #expect(error?.code == "timeout")
        #expect(await eventually { hanging.hasCancel("n-1") }, "the cancel is in the engine, which hangs")

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

    /// Finding 2 (close() hangs behind a hung cancel). close() settles the pending page-to-native
    /// calls and sends their final replies through `send`, which waits for the cancels in flight
    /// (`RouterState.route` does not look at `isClosed`). With a cancel whose evaluation does not
    /// return, close() never returns, and the call's task is never told. close() must return
    /// promptly whatever the engine does (the final replies of close are best effort).
    @Test("close() returns while a cancel's evaluation hangs", .timeLimit(.minutes(2)))
    func closeHangsBehindHungCancel() async throws {
        let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
            try await Task.sleep(for: .seconds(60))  // until close() cancels it
            return 1
        }
        let router = try makeRouter([slow])
        let page = InMemoryPage(router: router)
        let hanging = HangingChannel(hanging: ["n-1"])
        router.connect(hanging.channel)  // replaces the page's own channel
        router.pageDidAnnounceDocument(Self.documentA)
        _ = try #require(page.send("slow"))
        let error = await #expect(throws: BridgeError.self) {
            _ = try await router.callPage("save", timeout: .milliseconds(50))
        }
        #expect(error?.code == "timeout")
        #expect(await eventually { hanging.hasCancel("n-1") })

        let closed = Locked(false)
        let closing = Task {
            await router.close()
            closed.set(true)
        }
        #expect(await eventually { closed.value }, "close() waits for the hung cancel's evaluation")
        hanging.releaseAll()
        await closing.value
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
        let hanging = HangingChannel(hanging: ["n-1", "n-2"])
        router.connect(hanging.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        let first = Task { try await router.callPage("save", options: ["item": 1], timeout: .milliseconds(200)) }
        let second = Task { try await router.callPage("save", options: ["item": 2], timeout: nil) }
        // Both calls were handed to the engine (submitted).
        #expect(
            await eventually {
                hanging.scripts.filter { $0.contains("\"kind\":\"call\"") }.count == 2
            })
        let error = await #expect(throws: BridgeError.self) { _ = try await first.value }
        #expect(error?.code == "timeout")
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
