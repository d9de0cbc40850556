/// A task built from a closure, for small cases.
///
/// ```swift
/// try router.register(ClosureTask(name: "Echo") { (options: JSONValue, _) in options })
/// ```
public struct ClosureTask<Options: Decodable & Sendable, Result: Encodable & Sendable>: BridgeTask {
    public let name: String
    public let policy: AccessPolicy?
    public let timeout: Duration?
    public let execution: TaskExecution
    private let body: @Sendable (Options, CallContext) async throws -> Result

    /// Creates a task.
    /// - Parameters:
    ///   - name: the name the page calls.
    ///   - policy: who may call it; `nil` uses the router's policy.
    ///   - timeout: the time limit per call; `nil` uses the router's default.
    ///   - execution: where each call starts (``TaskExecution``); default `.concurrent`.
    ///   - body: the work; its errors follow ``BridgeTask/run(_:context:)``.
    public init(
        name: String,
        policy: AccessPolicy? = nil,
        timeout: Duration? = nil,
        execution: TaskExecution = .concurrent,
        _ body: @escaping @Sendable (Options, CallContext) async throws -> Result
    ) {
        self.name = name
        self.policy = policy
        self.timeout = timeout
        self.execution = execution
        self.body = body
    }

    public func run(_ options: Options, context: CallContext) async throws -> Result {
        try await body(options, context)
    }
}

extension ClosureTask where Result == NoResult {
    /// Creates a task whose work returns nothing; the page's call resolves with `null`
    /// (``NoResult``).
    ///
    /// ```swift
    /// try router.register(ClosureTask(name: "log") { (line: String, _) in print(line) })
    /// ```
    /// - Parameters: as ``init(name:policy:timeout:execution:_:)``.
    public init(
        name: String,
        policy: AccessPolicy? = nil,
        timeout: Duration? = nil,
        execution: TaskExecution = .concurrent,
        _ body: @escaping @Sendable (Options, CallContext) async throws -> Void
    ) {
        self.init(name: name, policy: policy, timeout: timeout, execution: execution) { options, context in
            try await body(options, context)
            return NoResult()
        }
    }
}
