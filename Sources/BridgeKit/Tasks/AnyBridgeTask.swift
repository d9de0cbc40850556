/// A type-erased task as the router stores it: the decode step and the run step, each opened
/// on the task's own types.
struct AnyBridgeTask: Sendable {
    let name: String
    let policy: AccessPolicy?
    let timeout: Duration?
    let execution: TaskExecution
    /// Whether the options are ``RawJSON``, which the fast path hands over without decoding.
    let takesRawJSON: Bool
    /// Decodes the options from the envelope's `options` member (absent means JSON `null`).
    let decodeOptions: @Sendable (any Decoder) throws -> any Sendable
    /// Runs the task with options produced by `decodeOptions`.
    let run: @Sendable (any Sendable, CallContext) async throws -> any Encodable & Sendable

    init<T: BridgeTask>(_ task: T) {
        name = task.name
        policy = task.policy
        timeout = task.timeout
        execution = task.execution
        takesRawJSON = T.Options.self == RawJSON.self
        decodeOptions = { decoder in try T.Options(from: decoder) }
        run = { options, context in
            guard let typed = options as? T.Options else {
                throw BridgeError.invalidOptions("Options of the wrong type reached \(T.self).", path: "")
            }
            return try await task.run(typed, context: context)
        }
    }
}
