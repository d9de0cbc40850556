public import BridgeKit

/// The stock `Echo` task: replies with its options unchanged. For diagnostics, round-trip
/// checks and benchmarks.
///
/// The options pass through as ``RawJSON`` (checked, never decoded), so the reply carries the
/// page's JSON text unchanged (except that integers beyond ±2^53 arrive as strings, as in every
/// reply, so no digit is lost), and the task starts ``TaskExecution/immediate``ly: an echo
/// costs the bridge's own work and nothing else.
public struct EchoTask: BridgeTask {
    public let name: String
    public let policy: AccessPolicy?
    public var execution: TaskExecution { .immediate }

    /// Creates the task.
    /// - Parameters:
    ///   - name: the task name; default `"Echo"`.
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(name: String = "Echo", policy: AccessPolicy? = nil) {
        self.name = name
        self.policy = policy
    }

    public func run(_ options: RawJSON, context: CallContext) async throws -> RawJSON {
        options
    }
}
