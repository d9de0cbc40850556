import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// Attack 10 on the drain design (``DocumentWait``: scripts sent while the held ones drain go to
/// the engine at once; a native-to-page call's cancel waits for the call's delivery). The cancel
/// is not sent when the call settles but when the call's held script finally went out, so it
/// loses its place among the scripts the program sent after the cancel, and it can outlive the
/// router's channel.
@Suite("Router: attacking the drain (attack 10)")
struct DocumentWaitAttack10Tests {
    static let documentB = String(repeating: "b2", count: 16)

    /// Finding A (a cancel made before close() is lost, its call is not). The app cancels a
    /// native-to-page call whose script waits for the notice (callPage throws `cancelled` at
    /// once), then closes the router. close() sends the held scripts through the channel that
    /// was connected, the *cancelled* call among them; the cancel, which waited for that
    /// delivery in its own task, is sent after close() dropped the channel: `no_channel`. The
    /// page runs the handler of a call native cancelled before close(), and nothing ever
    /// aborts it. Without the wait, the cancel went out when the call was cancelled.
    @Test(
        "A call cancelled while its script waits, then close(): the page gets the call's cancel, or not the call",
        .timeLimit(.minutes(1)))
    func cancelThenCloseLosesCancel() async throws {
        let (router, recording) = try DocumentWaitTests.betweenCommitAndNotice()
        let traffic = TrafficLog(router)
        let call = Task { try await router.callPage("save", options: ["item": 1], timeout: nil) }
        #expect(await eventually { router.heldScriptCount == 1 }, "the call waits for the notice")
        call.cancel()
        let error = await #expect(throws: BridgeError.self) { _ = try await call.value }
        #expect(error?.code == "cancelled")
        await router.close()
        // close() returns once the held scripts went out (or were dropped).
        let outbound = traffic.all.filter { $0.direction == .outbound }
        #expect(outbound.contains { $0.kind == .call }, "the call's script is accounted for")
        let scripts = recording.page.withLock { $0 } + recording.document.withLock { $0 }
        let callSent = scripts.contains { $0.contains("\"kind\":\"call\"") }
        let cancelSent = scripts.contains { $0.contains("\"kind\":\"cancel\"") }
        #expect(
            !callSent || cancelSent,
            "the cancelled call reached the page in close(), its cancel did not: \(outbound.map { "\($0.kind) \($0.reason.map { "\($0)" } ?? "sent")" })"
        )
    }

    /// Finding B (an event sent after a cancel overtakes the cancel). A task's call times out
    /// while its script waits for the notice; the task then emits an event, which joins the queue
    /// behind the call. The cancel is not in the queue: it waits for the call's delivery in its
    /// own task and is sent once that delivery ended, by which time the flusher (which does not
    /// wait for anyone between two held scripts) has sent the event already. The page sees
    /// call, event, cancel: the event the app sent after it gave up on the call reaches a page
    /// whose handler still runs the call (e.g. `reset` processed before `save` is aborted).
    @Test(
        "A call times out while it waits, then its task emits: the cancel reaches the page before the event",
        .timeLimit(.minutes(2)))
    func eventAfterTimeoutOvertakesCancel() async throws {
        var reversed = 0
        let rounds = 20
        for _ in 0..<rounds {
            let (router, recording) = try DocumentWaitTests.betweenCommitAndNotice()
            let sender = Task {
                do {
                    _ = try await router.callPage("save", options: ["item": 1], timeout: .milliseconds(20))
                } catch {}
                try await router.emit("reset", data: 0)
            }
            #expect(await eventually { router.heldScriptCount == 2 }, "the call and the event wait")
            router.pageDidAnnounceDocument(Self.documentB)
            try await sender.value  // the event was evaluated
            await router.close()
            let scripts = recording.document.withLock { $0 }
            let callIndex = scripts.firstIndex { $0.contains("\"kind\":\"call\"") }
            let cancelIndex = scripts.firstIndex { $0.contains("\"kind\":\"cancel\"") }
            let eventIndex = scripts.firstIndex { $0.contains("\"name\":\"reset\"") }
            #expect(eventIndex != nil)
            // The call reached the page (it need not: it settled before it left) with no cancel
            // before the event.
            if let callIndex, let eventIndex, callIndex < eventIndex, (cancelIndex ?? .max) > eventIndex {
                reversed += 1
            }
        }
        #expect(
            reversed == 0,
            "the event sent after the timeout overtook the call's cancel in \(reversed) of \(rounds) rounds")
    }
}

extension DocumentWaitAttack10Tests {
    /// Finding C (a call native gave up on still starts on the page). A native-to-page call
    /// times out (or is cancelled) while its script waits for the notice: the app has its error,
    /// nothing on the page knows of the call yet. When the notice comes the flusher sends the call
    /// all the same (it drops only the progress of settled calls), and the page runs the handler,
    /// with its side effects, for a call whose answer is dropped; the cancel that follows aborts
    /// only a handler that listens to its signal. A settled call's held script need not go out
    /// at all (and then needs no cancel).
    @Test(
        "A call that times out while its script waits for the notice never reaches the page",
        .timeLimit(.minutes(1)))
    func settledHeldCallIsNotSent() async throws {
        let (router, recording) = try DocumentWaitTests.betweenCommitAndNotice()
        let error = await #expect(throws: BridgeError.self) {
            _ = try await router.callPage("save", options: ["item": 1], timeout: .milliseconds(20))
        }
        #expect(error?.code == "timeout")
        #expect(router.heldScriptCount == 1, "the call's script still waits")
        router.pageDidAnnounceDocument(Self.documentB)
        #expect(await eventually { router.heldScriptCount == 0 })
        // Let the flusher and the cancel's task finish (bounded: on correct code nothing comes).
        _ = await DocumentWaitAttackTests.within(.milliseconds(300)) {
            recording.document.withLock { $0.count } >= 2
        }
        let scripts = recording.document.withLock { $0 } + recording.page.withLock { $0 }
        #expect(
            !scripts.contains { $0.contains("\"kind\":\"call\"") },
            "the timed-out call reached the page after the app had its error: \(scripts.map { $0.contains("\"kind\":\"call\"") ? "call" : $0.contains("\"kind\":\"cancel\"") ? "cancel" : "other" })"
        )
        await router.close()
    }
}

extension DocumentWaitAttack10Tests {
    /// Finding E (the cancel waits for the call's evaluation to *end*, not for it to reach the
    /// engine). No notice is awaited here: the document is named and nothing is held. The engine
    /// is busy with the call's script (a slow web process); the app cancels the call (callPage
    /// throws `cancelled` at once) and its task emits an event, which goes to the engine at once
    /// and is queued there behind the call. The cancel waits in its task until the engine
    /// *returns* from the call's evaluation, so it reaches the engine after the event: the page
    /// sees call, event, cancel. Ordering the cancel behind the call needs only the call to have
    /// been handed to the engine (its `evaluate` entered), not evaluated.
    @Test(
        "The engine busy with a call's script: the call's cancel reaches it before the event its task sends next",
        .timeLimit(.minutes(1)))
    func eventOvertakesCancelWhileCallEvaluates() async throws {
        let router = try makeRouter()
        let gated = DocumentWaitAttackTests.GatedChannel(gateMarker: "\"kind\":\"call\"")
        router.connect(gated.channel)
        router.pageDidAnnounceDocument(Self.documentB)
        let sender = Task {
            do { _ = try await router.callPage("save", options: ["item": 1], timeout: nil) } catch {}
            try await router.emit("reset", data: 0)
        }
        #expect(await eventually { gated.scripts.contains { $0.contains("\"kind\":\"call\"") } })
        sender.cancel()  // callPage throws cancelled; the task emits
        // Bounded: on correct code the cancel comes before the event, whatever the gate.
        _ = await DocumentWaitAttackTests.within(.milliseconds(500)) { gated.scripts.count >= 2 }
        gated.gateOpen.store(true, ordering: .releasing)
        try await sender.value
        #expect(await eventually { gated.scripts.count == 3 })
        let scripts = gated.scripts
        let cancelIndex = scripts.firstIndex { $0.contains("\"kind\":\"cancel\"") }
        let eventIndex = scripts.firstIndex { $0.contains("\"name\":\"reset\"") }
        #expect(cancelIndex != nil && eventIndex != nil)
        if let cancelIndex, let eventIndex {
            #expect(cancelIndex < eventIndex, "the event sent after the cancel reached the engine before it")
        }
        await router.close()
    }
}
