import Foundation

/// Waits for a completion callback with a time limit, exactly once: the waits on
/// `WKHTTPCookieStore`'s completions before a first load must not hang the app's launch when
/// WebKit never calls back (a web content process that is gone, a store that is being torn
/// down).
package enum CompletionWait {
    /// Starts an operation with `start`, which must call the `complete` callback it is given
    /// (from any thread, at most once counts), and waits for it.
    /// - Parameters:
    ///   - seconds: the time limit, in seconds; `nil` waits without one.
    ///   - operation: names the operation in the timeout's message, for example
    ///     `"WKHTTPCookieStore.setCookie"`.
    ///   - start: starts the operation; runs synchronously on the caller's actor.
    /// - Returns: the value passed to `complete`.
    /// - Throws: a `timeout` ``BridgeError`` when `complete` was not called in time (a
    ///   later call is ignored); `CancellationError` when the waiting task is cancelled.
    package static func wait<Value: Sendable>(
        seconds: Double?,
        operation: String,
        isolation: isolated (any Actor)? = #isolation,
        _ start: (_ complete: @escaping @Sendable (Value) -> Void) -> Void
    ) async throws -> Value {
        let slot = Locked<CheckedContinuation<Value, any Error>?>(nil)
        let settle: @Sendable (Result<Value, any Error>) -> Void = { result in
            let continuation = slot.withLock { stored in
                let taken = stored
                stored = nil
                return taken
            }
            continuation?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                slot.withLock { $0 = continuation }
                if Task.isCancelled {
                    settle(.failure(CancellationError()))
                    return
                }
                let timer: Task<Void, Never>? = seconds.map { seconds in
                    Task {
                        try? await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1_000_000_000))
                        guard !Task.isCancelled else { return }
                        settle(
                            .failure(
                                BridgeError(
                                    code: "timeout", message: "\(operation) did not complete within \(seconds) s.",
                                    details: ["seconds": .double(seconds)])))
                    }
                }
                start { value in
                    timer?.cancel()
                    settle(.success(value))
                }
            }
        } onCancel: {
            settle(.failure(CancellationError()))
        }
    }
}
