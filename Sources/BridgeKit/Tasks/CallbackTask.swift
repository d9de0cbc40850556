/// A one-shot responder for callback-style handlers ported from other bridges.
///
/// The first ``respond(_:)`` or ``fail(_:)`` settles the call; every later one returns `false`
/// and sends nothing (field case R16: a handler that answers twice must not crash or reply
/// twice). If the responder is released without answering, the call settles with
/// `task_failed` ("the handler never responded"), so it never hangs.
public final class CallResponder<Result: Encodable & Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<Result, any Error>?>

    init(_ continuation: CheckedContinuation<Result, any Error>) {
        self.continuation = Locked(continuation)
    }

    deinit {
        continuation.withLock { $0 }?.resume(throwing: BridgeError.taskFailed("The handler never responded."))
    }

    /// Settles the call with `value`.
    /// - Returns: `true` the first time; `false` when the call was already answered.
    @discardableResult
    public func respond(_ value: Result) -> Bool {
        guard let waiting = take() else { return false }
        waiting.resume(returning: value)
        return true
    }

    /// Settles the call with an error.
    /// - Returns: `true` the first time; `false` when the call was already answered.
    @discardableResult
    public func fail(_ error: any Error) -> Bool {
        guard let waiting = take() else { return false }
        waiting.resume(throwing: error)
        return true
    }

    private func take() -> CheckedContinuation<Result, any Error>? {
        continuation.withLock { stored in
            let taken = stored
            stored = nil
            return taken
        }
    }
}

/// A task whose handler answers through a ``CallResponder`` instead of returning, for code
/// written against callback-style bridges (WebViewJavascriptBridge, DSBridge).
public struct CallbackTask<Options: Decodable & Sendable, Result: Encodable & Sendable>: BridgeTask {
    public let name: String
    public let policy: AccessPolicy?
    public let timeout: Duration?
    private let handler: @Sendable (Options, CallContext, CallResponder<Result>) -> Void

    /// Creates a task.
    /// - Parameters:
    ///   - name: the name the page calls.
    ///   - policy: who may call it; `nil` uses the router's policy.
    ///   - timeout: the time limit per call; `nil` uses the router's default.
    ///   - handler: called once per call; answers through the responder, from any thread.
    public init(
        name: String,
        policy: AccessPolicy? = nil,
        timeout: Duration? = nil,
        _ handler: @escaping @Sendable (Options, CallContext, CallResponder<Result>) -> Void
    ) {
        self.name = name
        self.policy = policy
        self.timeout = timeout
        self.handler = handler
    }

    public func run(_ options: Options, context: CallContext) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            handler(options, context, CallResponder(continuation))
        }
    }
}
