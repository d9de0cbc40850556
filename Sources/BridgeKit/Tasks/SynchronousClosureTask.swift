/// A ``SynchronousBridgeTask`` built from a closure, for small cases.
///
/// ```swift
/// try router.register(SynchronousClosureTask(name: "AppVersion") { (_: NoOptions, _) in "2.4.1" })
/// ```
public struct SynchronousClosureTask<Options: Decodable & Sendable, Result: Encodable & Sendable>: SynchronousBridgeTask
{
    public let name: String
    public let policy: AccessPolicy?
    private let body: @Sendable (Options, CallContext) throws -> Result

    /// Creates a task.
    /// - Parameters:
    ///   - name: the name the page calls.
    ///   - policy: who may call it; `nil` uses the router's policy.
    ///   - body: the work, run on the thread that delivered the message; its errors follow
    ///     ``SynchronousBridgeTask/runSynchronously(_:context:)``.
    public init(
        name: String, policy: AccessPolicy? = nil, _ body: @escaping @Sendable (Options, CallContext) throws -> Result
    ) {
        self.name = name
        self.policy = policy
        self.body = body
    }

    /// Calls the closure.
    public func runSynchronously(_ options: Options, context: CallContext) throws -> Result {
        try body(options, context)
    }
}
