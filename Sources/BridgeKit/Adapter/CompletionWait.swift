import Foundation

/// Waits for a completion callback with a time limit, exactly once: the waits on
/// `WKHTTPCookieStore`'s completions before a first load must not hang the app's launch when
/// WebKit never calls back (a web content process that is gone, a store that is being torn
/// down).
package enum CompletionWait {
    /// Starts an operation with `start`, which must call the `complete` callback it is given
    /// (from any thread, at most once counts), and waits for it.
    /// - Parameters:
    ///   - seconds: the time limit, in seconds; `nil`, `.infinity` or a limit longer than
    ///     ``longestLimit`` waits without one; a negative limit or NaN is 0 (the wait times out
    ///     unless `start` completed at once).
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
                let timer = Locked<Task<Void, Never>?>(nil)
                start { value in
                    timer.withLock { $0 }?.cancel()
                    settle(.success(value))
                }
                // Started after `start`, so that a completion that came at once wins over a limit of
                // 0 (a timer started first could fire before it: seen under the thread sanitizer).
                guard let nanoseconds = seconds.flatMap(Self.nanoseconds), slot.withLock({ $0 != nil }) else { return }
                let started = Task {
                    try? await Task.sleep(nanoseconds: nanoseconds)
                    guard !Task.isCancelled else { return }
                    settle(
                        .failure(
                            BridgeError(
                                code: "timeout",
                                message: "\(operation) did not complete within \(Double(nanoseconds) / 1e9) s.",
                                details: ["seconds": .double(Double(nanoseconds) / 1e9)])))
                }
                timer.withLock { $0 = started }
                // A completion between the check and here found no timer to cancel.
                if slot.withLock({ $0 == nil }) { started.cancel() }
            }
        } onCancel: {
            settle(.failure(CancellationError()))
        }
    }

    /// The longest time limit a timer is made for, in seconds (about 584 years, the most
    /// nanoseconds a `UInt64` holds); a longer one waits without a limit.
    package static let longestLimit = Double(UInt64.max / 1_000_000_000)

    /// `seconds` as the nanoseconds of a timer; `nil` for no timer (infinite or over
    /// ``longestLimit``). NaN and negative limits are 0. The app's value, never trapped on.
    static func nanoseconds(_ seconds: Double) -> UInt64? {
        guard !seconds.isNaN else { return 0 }
        guard seconds < longestLimit else { return nil }
        return UInt64(max(seconds, 0) * 1_000_000_000)
    }
}
