import Synchronization

/// The benchmark's page channel: takes each script the router hands it (as a real channel hands
/// it to the engine), counts scripts, keeps the latest one while ``keepsScripts`` is set (for the
/// correctness check, outside the timing), and wakes the one waiter when a count is reached.
///
/// The count is an atomic, so a script costs the sink one atomic increment and one atomic load
/// while nobody waits for it (the sink stands in for the engine: its own cost is not the
/// bridge's); the lock is taken only to keep a script or to wake the waiter.
final class ScriptSink: Sendable {
    private struct State {
        var last: String?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let delivered = Atomic<Int>(0)
    /// The count the waiter waits for; `Int.max` while nobody waits.
    private let target = Atomic<Int>(.max)
    private let keepsScripts = Atomic<Bool>(true)

    /// The most recent script, while scripts are kept.
    var last: String? { state.withLock { $0.last } }

    /// Stops keeping scripts (the timed runs drop them at once, like a bare path drops its output).
    func dropScripts() {
        keepsScripts.store(false, ordering: .sequentiallyConsistent)
        state.withLock { $0.last = nil }
    }

    /// Called by the router's ``PageChannel``, on whatever thread the router delivers from.
    func keep(_ script: String) {
        if keepsScripts.load(ordering: .sequentiallyConsistent) {
            state.withLock { $0.last = script }
        }
        let count = delivered.add(1, ordering: .sequentiallyConsistent).newValue
        guard count >= target.load(ordering: .sequentiallyConsistent) else { return }
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let waiter = state.waiter, count >= target.load(ordering: .sequentiallyConsistent) else { return nil }
            state.waiter = nil
            target.store(.max, ordering: .sequentiallyConsistent)
            return waiter
        }
        waiter?.resume()
    }

    /// The number of scripts that have arrived.
    var deliveredCount: Int { delivered.load(ordering: .sequentiallyConsistent) }

    /// Waits until `count` scripts in total have arrived.
    func wait(untilDelivered count: Int) async {
        await withCheckedContinuation { continuation in
            let ready: Bool = state.withLock { state in
                // Publish the target first, then read the count: a `keep` that raced past the
                // target check sees the target or is seen here (both sequentially consistent).
                state.waiter = continuation
                target.store(count, ordering: .sequentiallyConsistent)
                guard delivered.load(ordering: .sequentiallyConsistent) >= count else { return false }
                state.waiter = nil
                target.store(.max, ordering: .sequentiallyConsistent)
                return true
            }
            if ready { continuation.resume() }
        }
    }
}
