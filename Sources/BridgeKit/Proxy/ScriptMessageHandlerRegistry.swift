/// The part of a web view's content controller that BridgeKit uses to install its message
/// handlers. Hosts implement it over `WKUserContentController` or `WebKitUserContentManager`;
/// tests use a recording fake.
///
/// ## Implementation requirements
/// - ``addScriptMessageHandler(_:name:)`` installs `proxy` under `name` so that messages posted
///   to `window.webkit.messageHandlers[name]` reach ``MessageHandlerProxy/receive(_:from:replyHandler:)``.
///   It may retain the proxy strongly (the proxy holds the router weakly).
/// - ``removeScriptMessageHandler(name:)`` uninstalls it. BridgeKit never adds a name twice
///   without removing it in between (WebKit raises an exception on a duplicate).
@MainActor
public protocol ScriptMessageHandlerRegistry: AnyObject, Sendable {
    /// Installs `proxy` as the handler for `name`.
    func addScriptMessageHandler(_ proxy: MessageHandlerProxy, name: String)
    /// Removes the handler for `name`.
    func removeScriptMessageHandler(name: String)
}
