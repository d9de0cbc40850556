/// One web view's flow control on the main actor: a ``DeliveryWindow`` with the barrier that
/// confirms what the web process took, for Apple's URL scheme handler (`WebKitAssetSchemeHandler`
/// through ``AssetSchemeDriver``). WebKitGTK's counterpart is `GTKDeliveryGate`, on the GTK thread.
///
/// A body's sender awaits ``admit(_:)`` before it hands a chunk to the engine; the gate sends the
/// barrier when the window says so and admits waiting chunks, first come first, when it returns.
///
/// Thread: main actor.
@MainActor
package final class DeliveryGate {
    private var window: DeliveryWindow
    private var nextID = 0
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private let barrier: @MainActor () async -> Void

    /// Creates a gate.
    /// - Parameters:
    ///   - budget: the most bytes handed to the engine and not yet confirmed, in bytes.
    ///   - barrier: sends a message to the web process behind the chunks already handed, and
    ///     returns when it answered or failed (for example, evaluates `0` in a content world of its
    ///     own).
    package init(budget: Int, barrier: @escaping @MainActor () async -> Void) {
        window = DeliveryWindow(budget: budget)
        self.barrier = barrier
    }

    /// Whether nothing is unconfirmed, waiting or being confirmed.
    package var isIdle: Bool { window.isIdle }

    /// The chunks waiting for room.
    package var waitingCount: Int { window.waitingCount }

    /// Bytes handed to the engine and not yet confirmed.
    package var unconfirmedBytes: Int64 { window.unconfirmedBytes }

    /// Returns once `bytes` may be handed to the engine (at once when they fit).
    package func admit(_ bytes: Int) async {
        let id = nextID
        nextID += 1
        let actions = window.request(id: id, bytes: bytes)
        if actions.admitted.contains(id) {
            perform(actions)
            return
        }
        await withCheckedContinuation { continuation in
            waiting[id] = continuation
            perform(actions)
        }
    }

    private func perform(_ actions: DeliveryWindow.Actions) {
        if actions.issuesBarrier {
            Task {
                await barrier()
                perform(window.barrierReturned())
            }
        }
        for id in actions.admitted { waiting.removeValue(forKey: id)?.resume() }
    }
}
