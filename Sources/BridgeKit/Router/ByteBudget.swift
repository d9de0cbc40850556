/// The bytes a router holds for its page, against ``BridgeLimits/maxHeldBytes``.
///
/// A call is charged its body's UTF-8 byte count when it is admitted and released when its work
/// ends (by then its options and result are gone); a fire-and-forget call from queueing until its
/// job ends; a final reply script waiting for the engine while it waits. One short lock per charge
/// and per release.
///
/// Thread safety: every method may be called from any thread.
final class ByteBudget: Sendable {
    /// The most bytes ``reserve(_:)`` admits.
    let limit: Int
    private let counts = Locked((held: 0, peak: 0))

    init(limit: Int) {
        self.limit = limit
    }

    /// The bytes held now.
    var heldBytes: Int { counts.withLock { $0.held } }
    /// The most bytes held at once so far.
    var peakBytes: Int { counts.withLock { $0.peak } }

    /// Charges `bytes` when they fit in the budget.
    /// - Returns: `false`, charging nothing, when the bytes held would exceed ``limit``.
    func reserve(_ bytes: Int) -> Bool {
        counts.withLock { counts in
            let (sum, overflow) = counts.held.addingReportingOverflow(bytes)
            guard !overflow, sum <= limit else { return false }
            counts.held = sum
            counts.peak = max(counts.peak, sum)
            return true
        }
    }

    /// Charges `bytes` whatever the budget: for what the router already holds and must keep (a
    /// reply its work produced); later reservations are refused until it is released.
    func charge(_ bytes: Int) {
        counts.withLock { counts in
            counts.held &+= bytes
            counts.peak = max(counts.peak, counts.held)
        }
    }

    /// Releases `bytes` charged before.
    func release(_ bytes: Int) {
        counts.withLock { $0.held &-= bytes }
    }
}
