import BridgeKit

/// Runs the pushes and pulls of one jar one at a time, in the order they started
/// (``CookieSync``). A pull decides what the web view deleted by comparing the store's answer
/// with the jar's record of the last push or pull: an older pull that resumed after a newer push
/// or pull would take that one's cookies for deleted (attack 16).
final class SyncTurns: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `body` once every earlier turn has ended.
    func run<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await begin()
        defer { end() }
        return try await body()
    }

    private func begin() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(turn)
                return false
            }
            if now { turn.resume() }
        }
    }

    /// Hands the turn to the next waiter, if any (it stays busy), or frees it.
    private func end() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
