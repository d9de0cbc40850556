public import BridgeKit

/// The stock `Echo` task: replies with its options unchanged. For diagnostics, round-trip
/// checks and benchmarks (every JSON value survives the trip with its type).
public struct EchoTask: BridgeTask {
    public let name: String
    public let policy: AccessPolicy?

    /// Creates the task.
    /// - Parameters:
    ///   - name: the task name; default `"Echo"`.
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(name: String = "Echo", policy: AccessPolicy? = nil) {
        self.name = name
        self.policy = policy
    }

    public func run(_ options: JSONValue, context: CallContext) async throws -> JSONValue {
        options
    }
}
