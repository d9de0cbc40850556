extension BinaryTransfers {
    /// Ends the offers that are still unfetched when their lifetime passes (or, read in parts,
    /// whose next part is not asked for within it), whether or not any other request comes: a
    /// page that never fetches its bytes (an aborted call whose reply it dropped, a page that
    /// stopped) does not keep them held for as long as it stays. One timer
    /// at a time, for the earliest deadline; it sets the next one when it fires.
    func scheduleExpiry() {
        let deadline = state.withLock { s -> Double? in
            // The earliest lifetime that may end (kept by `sweep` and `State.noteIdle`, not searched for).
            let next = s.nextExpiry
            guard !s.expiryScheduled, next < .infinity, !s.offers.isEmpty else { return nil }
            s.expiryScheduled = true
            return next
        }
        guard let deadline else { return }
        Task.detached { [weak self] in
            // A little past the deadline, so that the offer counts as expired.
            try? await Task.sleep(nanoseconds: UInt64((max(0, deadline - Self.now()) + 0.01) * 1e9))
            guard let self else { return }
            self.state.withLock { $0.expiryScheduled = false }
            self.sweep(now: Self.now())
            self.scheduleExpiry()
        }
    }

    /// Starts the timer of a wait: after `seconds`, `fire` runs (on a detached task) unless the
    /// timer was cancelled first; its owner cancels it when the wait ends for another reason, so
    /// no sleeper outlives its wait (``waitTimers`` counts them). Call with the state lock held.
    func startWaitTimer(
        in s: inout State, seconds: Double, fire: @escaping @Sendable (BinaryTransfers) -> Void
    ) -> Task<Void, Never> {
        s.waitTimers += 1
        return Task.detached { [weak self] in
            let fired = (try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))) != nil
            guard let self else { return }
            self.state.withLock { $0.waitTimers -= 1 }
            if fired { fire(self) }
        }
    }
}
