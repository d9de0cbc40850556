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
    /// How many barriers were sent: the number of the one in flight, if any.
    private var barriersSent = 0
    private let barrier: @MainActor () async -> Void
    private let stallInterval: Duration

    /// Creates a gate.
    /// - Parameters:
    ///   - budget: the most bytes handed to the engine and not yet confirmed, in bytes.
    ///   - stallInterval: how long a barrier may go unanswered before one more budget is admitted
    ///     (`DeliveryWindow.barrierOverdue()`); default ``DeliveryWindow/stallInterval``.
    ///   - barrier: sends a message to the web process behind the chunks already handed, and
    ///     returns when it answered or failed (for example, evaluates `0` in a content world of its
    ///     own).
    package init(
        budget: Int, stallInterval: Duration = DeliveryWindow.stallInterval,
        barrier: @escaping @MainActor () async -> Void
    ) {
        window = DeliveryWindow(budget: budget)
        self.stallInterval = stallInterval
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
            barriersSent += 1
            let serial = barriersSent
            Task {
                await barrier()
                perform(window.barrierReturned())
            }
            Task { await tickWhileOverdue(serial) }
        }
        for id in actions.admitted { waiting.removeValue(forKey: id)?.resume() }
    }

    /// Calls `DeliveryWindow.barrierOverdue()` every stall interval while barrier
    /// `serial` is the one in flight.
    private func tickWhileOverdue(_ serial: Int) async {
        while true {
            try? await Task.sleep(for: stallInterval)
            guard barriersSent == serial, window.isBarrierInFlight else { return }
            perform(window.barrierOverdue())
        }
    }
}
