/// Native-to-page messages of protocol v1 (see docs/protocol.md). ``ReplyPipeline`` writes
/// their JSON text; the tests compare it with a `Codable` encoding of the same message (the
/// oracle, in the test target).
enum OutboundMessage: Sendable {
    /// The final answer to a page call; `binary`: the tokens of the downloads it introduces
    /// (its envelope's `binary` member, absent when empty).
    case reply(id: String, result: Result<any Encodable & Sendable, BridgeError>, binary: [String] = [])
    /// A non-final answer to a page call; `binary` as for ``reply(id:result:binary:)``.
    case progress(id: String, data: any Encodable & Sendable, binary: [String] = [])
    /// A named event for `WebBridge.on(name, …)` listeners.
    case event(name: String, data: any Encodable & Sendable)
    /// A native-to-page call of a handler registered with `WebBridge.handle(name, …)`.
    case call(id: String, handler: String, options: any Encodable & Sendable)
    /// Withdraws a native-to-page call (timeout or cancellation on the native side).
    case cancel(id: String)
}
