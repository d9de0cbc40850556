import Synchronization

/// The benchmark's page channel: takes each script the router hands it (as a real channel hands
/// it to the engine), counts scripts, keeps the latest one while ``keepsScripts`` is set (for the
/// correctness check, outside the timing), and wakes the one waiter when a count is reached.
final class ScriptSink: Sendable {
    private struct State {
        var delivered = 0
        var last: String?
        var keepsScripts = true
        var target = Int.max
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// The most recent script, while scripts are kept.
    var last: String? { state.withLock { $0.last } }

    /// Stops keeping scripts (the timed runs drop them at once, like a bare path drops its output).
    func dropScripts() {
        state.withLock { state in
            state.keepsScripts = false
            state.last = nil
        }
    }

    /// Called by the router's ``PageChannel``, on whatever thread the router delivers from.
    func keep(_ script: String) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.delivered += 1
            if state.keepsScripts { state.last = script }
            guard state.delivered >= state.target, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits until `count` scripts in total have arrived.
    func wait(untilDelivered count: Int) async {
        await withCheckedContinuation { continuation in
            let ready: Bool = state.withLock { state in
                if state.delivered >= count { return true }
                state.target = count
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
