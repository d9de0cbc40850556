import BridgeKit

/// Barriers of a ``DeliveryGate`` that the test answers itself (``answerAll()``), and awaits
/// (``arrival()``).
@MainActor
final class HeldBarriers {
    private var pending: [CheckedContinuation<Void, Never>] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []

    /// The barriers sent and not answered yet.
    var count: Int { pending.count }

    /// The gate's barrier: returns once the test answers it.
    func wait() async {
        await withCheckedContinuation { continuation in
            pending.append(continuation)
            let waiting = arrivals
            arrivals = []
            for arrival in waiting { arrival.resume() }
        }
    }

    /// Returns once a barrier is pending (at once if one is).
    func arrival() async {
        guard pending.isEmpty else { return }
        await withCheckedContinuation { arrivals.append($0) }
    }

    /// Answers every barrier sent so far.
    func answerAll() {
        let answered = pending
        pending = []
        for barrier in answered { barrier.resume() }
    }

    /// Checks `condition` every millisecond until it holds or the test is cancelled (its time
    /// limit ends a hang).
    static func until(_ condition: () -> Bool) async {
        while !condition(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
    }
}
