#if canImport(WebKit)
public import WebKit

/// BridgeKit's ``ScriptMessageHandlerRegistry`` over a `WKUserContentController`, in one
/// content world. It wraps the controller (WebKit classes are not made to conform to BridgeKit
/// protocols).
///
/// - ``addScriptMessageHandler(_:name:)`` installs a `WKScriptMessageHandlerWithReply`
///   forwarding to the proxy, with `addScriptMessageHandler(_:contentWorld:name:)`
///   (iOS 14 / macOS 11).
/// - ``removeScriptMessageHandler(name:)`` removes it with
///   `removeScriptMessageHandler(forName:contentWorld:)` (iOS 14 / macOS 11).
///
/// Use ``registry(for:contentWorld:)``: it returns the **same** registry for the same controller
/// and world, so ``BridgeAttachment``'s bookkeeping (which names are installed where) sees a
/// second attachment to the same web view and never adds a name twice — WebKit raises an
/// Objective-C exception for that (field case R24). Content worlds are compared by identity;
/// WebKit returns one object for `.page`, `.defaultClient` and each `world(name:)` name.
///
/// The registry holds the controller weakly, and is kept (in a small main-actor table) for as
/// long as its controller lives, so an attachment released later can still remove its names.
@MainActor
public final class WebKitMessageHandlerRegistry: ScriptMessageHandlerRegistry {
    /// The wrapped controller, while it lives.
    public private(set) weak var userContentController: WKUserContentController?
    /// The content world handlers are installed in; the page's scripts must run there to see them.
    public let contentWorld: WKContentWorld

    /// The web view whose messages the handlers route (set by ``WebViewBridge``); messages of
    /// other web views sharing the controller are answered with `unavailable`. `nil` (a registry
    /// used without ``WebViewBridge``): every message is routed.
    public weak var attachedWebView: WKWebView?

    private static var registries: [WebKitMessageHandlerRegistry] = []

    private init(_ controller: WKUserContentController, contentWorld: WKContentWorld) {
        self.userContentController = controller
        self.contentWorld = contentWorld
    }

    /// The registry of `controller` in `contentWorld`, created on first use.
    /// - Parameters:
    ///   - controller: usually `webView.configuration.userContentController` (the configuration
    ///     is a copy, its controller is the web view's own).
    ///   - contentWorld: the world whose scripts may post to the handlers; default `.page`.
    public static func registry(
        for controller: WKUserContentController,
        contentWorld: WKContentWorld = .page
    ) -> WebKitMessageHandlerRegistry {
        registries.removeAll { $0.userContentController == nil }
        if let existing = registries.first(where: {
            $0.userContentController === controller && $0.contentWorld === contentWorld
        }) {
            return existing
        }
        let created = WebKitMessageHandlerRegistry(controller, contentWorld: contentWorld)
        registries.append(created)
        return created
    }

    /// Installs a `WKScriptMessageHandlerWithReply` forwarding to `proxy` under `name`.
    /// Does nothing when the controller is gone.
    public func addScriptMessageHandler(_ proxy: MessageHandlerProxy, name: String) {
        guard let controller = userContentController else { return }
        controller.addScriptMessageHandler(
            WebKitScriptMessageHandler(proxy: proxy, registry: self),
            contentWorld: contentWorld, name: name)
    }

    /// Removes the handler installed under `name` in this registry's world. Does nothing when
    /// the controller is gone.
    public func removeScriptMessageHandler(name: String) {
        userContentController?.removeScriptMessageHandler(forName: name, contentWorld: contentWorld)
    }
}
#endif
