public import BridgeKit

/// The stock `Echo` task: replies with its options unchanged. For diagnostics, round-trip
/// checks and benchmarks.
///
/// The options pass through as ``RawJSON`` (checked, never decoded), so the reply carries the
/// page's JSON text unchanged (except that integers beyond ±2^53 arrive as strings, as in every
/// reply, so no digit is lost), and the task is a ``SynchronousBridgeTask``: the reply is handed
/// to the engine before the message handler returns, so an echo costs the bridge's own work and
/// nothing else.
public struct EchoTask: SynchronousBridgeTask {
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

    /// Returns `options` unchanged.
    public func runSynchronously(_ options: RawJSON, context: CallContext) throws -> RawJSON {
        options
    }
}
