#if canImport(WebKit)
public import WebKit

extension WebViewBridge {
    /// How the bridge learns that a new document replaced the page's document (a new page
    /// generation: ``BridgeRouter/pageDidCommitNavigation()``).
    ///
    /// The document changes when WebKit *commits* a navigation, not when one starts: a navigation
    /// that never commits (a 204 or 205 response, a download, `window.stop()`, a navigation the
    /// app's policy cancels) leaves the same document, whose calls must go on and settle. BridgeKit
    /// never takes `navigationDelegate`, where `webView(_:didCommit:)` arrives, and no KVO-observable
    /// property of `WKWebView` changes exactly at commit (`isLoading` rises at the start, `url`
    /// also changes for `pushState`). So by default a small user script says it: injected at
    /// document start in the main frame, in a content world of its own with its own message
    /// handler (`WebKitDocumentNoticeHandler`), it posts a notice from every new main-frame
    /// document and when the back-forward cache restores one. Page scripts cannot reach that
    /// world, so they cannot forge a notice; nothing posted through the bridge's own channel
    /// changes the page generation.
    public enum NavigationSignal: Sendable, Hashable {
        /// Default: the document notice (``WebBridgeDocumentNotice``) starts a new page
        /// generation; installed by the bridge whether or not it installs the shim.
        case documentNotice
        /// The app calls ``WebViewBridge/navigationCommitted()`` from its own
        /// `webView(_:didCommit:)`; no notice script is installed. Use it when
        /// the app has a navigation delegate anyway: documents that run no script (a PDF, an
        /// image) are covered too.
        case appReported
    }

    /// Settings of a ``WebViewBridge``.
    public struct Configuration: Sendable {
        /// The content world of the shim and of the message handler; default `.page`, where the
        /// page's own scripts can call `window.WebBridge`. With another world (for example
        /// `WKContentWorld.world(name:)`), only scripts in that world reach the bridge, and
        /// replies are evaluated there.
        public var contentWorld: WKContentWorld
        /// Whether to install the shim (`js/webbridge.js`, ``WebBridgeShim/source``) as a
        /// document-start user script; default `true`. Turn off when the page bundles the shim.
        public var installsShim: Bool
        /// Whether the shim runs in the main frame only; default `true`. Subframes that get the
        /// shim are still subject to the router's ``AccessPolicy`` (main frame only by default).
        public var shimInMainFrameOnly: Bool
        /// How committed navigations are detected; default ``NavigationSignal/documentNotice``.
        public var navigationSignal: NavigationSignal
        /// Which responses and failures are page errors; default 2xx is success.
        public var responsePolicy: NavigationResponsePolicy
        /// Unread page events kept per subscriber of ``WebViewBridge/pageState``.
        public var pageEventBufferLimit: Int

        /// Creates settings; every parameter has the default described on its property.
        /// Main actor: the default world, `WKContentWorld.page`, is main-actor isolated.
        @MainActor
        public init(
            contentWorld: WKContentWorld = .page,
            installsShim: Bool = true,
            shimInMainFrameOnly: Bool = true,
            navigationSignal: NavigationSignal = .documentNotice,
            responsePolicy: NavigationResponsePolicy = NavigationResponsePolicy(),
            pageEventBufferLimit: Int = PageStateTracker.defaultBufferLimit
        ) {
            self.contentWorld = contentWorld
            self.installsShim = installsShim
            self.shimInMainFrameOnly = shimInMainFrameOnly
            self.navigationSignal = navigationSignal
            self.responsePolicy = responsePolicy
            self.pageEventBufferLimit = pageEventBufferLimit
        }
    }
}

/// Why ``WebViewBridge/attach(router:to:configuration:)`` refused.
public enum WebViewBridgeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another live bridge already installed a handler with this name on the web view's content
    /// controller in the same content world (WebKit would raise an exception on a second add).
    /// Detach it first.
    case handlerNameInUse(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .handlerNameInUse(let name):
            "A bridge is already attached to this web view (handler \"\(name)\"); detach it first."
        }
    }
}
#endif
