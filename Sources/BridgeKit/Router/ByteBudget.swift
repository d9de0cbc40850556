import Synchronization

/// The bytes a router holds for its page, against ``BridgeLimits/maxHeldBytes``.
///
/// A call is charged its body's UTF-8 byte count when it is admitted and released when its work
/// ends (by then its options and result are gone); a fire-and-forget call from queueing until its
/// job ends; a final reply script waiting for the engine while it waits. Lock-free: one atomic
/// add per charge and per release.
///
/// Thread safety: every method may be called from any thread.
final class ByteBudget: Sendable {
    /// The most bytes ``reserve(_:)`` admits.
    let limit: Int
    private let held = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// The bytes held now.
    var heldBytes: Int { held.load(ordering: .relaxed) }
    /// The most bytes held at once so far.
    var peakBytes: Int { peak.load(ordering: .relaxed) }

    /// Charges `bytes` when they fit in the budget.
    /// - Returns: `false`, charging nothing, when the bytes held would exceed ``limit``.
    func reserve(_ bytes: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            let (sum, overflow) = current.addingReportingOverflow(bytes)
            guard !overflow, sum <= limit else { return false }
            let (exchanged, original) = held.compareExchange(expected: current, desired: sum, ordering: .relaxed)
            if exchanged {
                _ = peak.max(sum, ordering: .relaxed)
                return true
            }
            current = original
        }
    }

    /// Charges `bytes` whatever the budget: for what the router already holds and must keep (a
    /// reply its work produced); later reservations are refused until it is released.
    func charge(_ bytes: Int) {
        let sum = held.wrappingAdd(bytes, ordering: .relaxed).newValue
        _ = peak.max(sum, ordering: .relaxed)
    }

    /// Releases `bytes` charged before.
    func release(_ bytes: Int) {
        held.wrappingSubtract(bytes, ordering: .relaxed)
    }
}
