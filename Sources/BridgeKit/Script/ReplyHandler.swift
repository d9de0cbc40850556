/// A structured, one-shot reply path for one message, where the engine has one
/// (`WKScriptMessageHandlerWithReply`'s `replyHandler`, WebKitGTK's `WebKitScriptMessageReply`).
///
/// The router answers through it exactly once: with the JSON text of the final reply for calls
/// it refuses or that come from subframes (an evaluated script only reaches the main frame), or
/// with `nil` ("no data", the page's promise resolves to `undefined`) right away otherwise.
/// A path created with `carriesFinalReplies` gets the final reply of main-frame calls too.
/// Answering a second time does nothing.
public final class ReplyHandler: Sendable {
    private let send: Locked<(@Sendable (String?) -> Void)?>

    /// Whether the router sends the final reply of a main-frame call through this path (one
    /// engine round trip) instead of answering `nil` at once and evaluating a reply script (two).
    /// Progress messages still go by script, and the router waits until each has been evaluated
    /// before the task continues, so a final reply sent this way never overtakes them.
    public let carriesFinalReplies: Bool

    /// Creates a reply path.
    /// - Parameters:
    ///   - carriesFinalReplies: see ``carriesFinalReplies``; default `false`. Set it only where
    ///     a reply through this path reaches the page's shim like a script would (WebKit's
    ///     with-reply handlers with BridgeKit's relay or a direct page-world handler: the
    ///     shim's `postMessage` promise resolves with the reply's JSON text and hands it to
    ///     `WebBridge._receive`).
    ///   - send: receives the reply's JSON text, or `nil`; called at most once, from any thread.
    public init(carriesFinalReplies: Bool = false, _ send: @escaping @Sendable (_ json: String?) -> Void) {
        self.carriesFinalReplies = carriesFinalReplies
        self.send = Locked(send)
    }

    /// Answers, if not answered yet.
    /// - Returns: `true` the first time.
    @discardableResult
    public func reply(_ json: String?) -> Bool {
        let taken = send.withLock { stored in
            let taken = stored
            stored = nil
            return taken
        }
        guard let taken else { return false }
        taken(json)
        return true
    }

    /// Whether ``reply(_:)`` has been called.
    public var hasReplied: Bool { send.withLock { $0 == nil } }
}
