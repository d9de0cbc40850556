/// How a router reaches its page: "evaluate this script in the main frame".
///
/// Every host plugs in here: the WKWebView adapter wraps `evaluateJavaScript(_:completionHandler:)`,
/// the WebKitGTK host wraps `webkit_web_view_evaluate_javascript`, and tests record scripts.
/// The function may be called from any thread; it hops to the actor its engine needs.
///
/// Final replies of main-frame calls go back through the message's ``ReplyHandler`` where the
/// host's reply path carries them (both shipped adapters); the channel carries progress, events,
/// native-to-page calls, task lists and the final replies of hosts without such a path.
public struct PageChannel: Sendable {
    /// Evaluates a script built by ``PageScript`` in the page's main frame.
    /// - Throws: whatever the engine reports (the page is gone, a script error).
    public let evaluate: @Sendable (_ script: String) async throws -> Void

    /// Evaluates a script bound to one document (``PageFunction/deliver(toDocument:)``) in the
    /// main frame's world of the document notice (`js/webbridge-document.js`), which page scripts
    /// cannot reach; `nil` when the host has no such world (scripts go to the page world,
    /// ``evaluate``). The router uses it for the generations whose document a notice named
    /// (``BridgeRouter/pageDidAnnounceDocument(_:origin:)``).
    public let evaluateForDocument: (@Sendable (_ script: String) async throws -> Void)?

    /// Creates a channel from an evaluate function.
    /// - Parameters:
    ///   - evaluate: evaluates a script in the page's main frame and returns when the engine has
    ///     done so; called from any thread.
    ///   - evaluateForDocument: the same in the world of the document notice, or `nil` (the default).
    public init(
        evaluate: @escaping @Sendable (_ script: String) async throws -> Void,
        evaluateForDocument: (@Sendable (_ script: String) async throws -> Void)? = nil
    ) {
        self.evaluate = evaluate
        self.evaluateForDocument = evaluateForDocument
    }
}
