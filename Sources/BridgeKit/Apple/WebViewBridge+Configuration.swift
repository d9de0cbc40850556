#if canImport(WebKit)
public import WebKit

extension WebViewBridge {
    /// How the bridge learns that the web view left its document (a new page generation:
    /// ``BridgeRouter/pageDidStartNavigation()``).
    ///
    /// Without being the navigation delegate (BridgeKit never takes `navigationDelegate` or
    /// `UIDelegate`), the only reliable public signal is KVO on `isLoading`. `url` is not
    /// usable: it also changes for same-document navigations (`pushState`, fragments), which must
    /// not cancel the page's calls. `isLoading` turns true when a main-frame load starts (at
    /// `load(_:)` for app-initiated loads, at the provisional start for link clicks, reloads and
    /// history navigations) and is not touched by same-document navigations. Its gap: a
    /// navigation that starts while another is still loading (a script redirect during load, a
    /// tap before the page finished) produces no new edge, so calls of the interrupted document
    /// stay pending until they finish or time out (their replies find no matching id in the new
    /// document's shim and are ignored). Apps that have a navigation delegate anyway should pick
    /// ``appReported``, which has no gap.
    public enum NavigationSignal: Sendable, Hashable {
        /// Default: each rising edge of `isLoading` (KVO) starts a new page generation.
        case loadingObservation
        /// The app calls ``WebViewBridge/navigationStarted()`` from its own
        /// `webView(_:didStartProvisionalNavigation:)`; `isLoading` only feeds page state.
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
        /// How navigations are detected; default ``NavigationSignal/loadingObservation``.
        public var navigationSignal: NavigationSignal
        /// Which responses and failures are page errors; default 2xx is success.
        public var responsePolicy: NavigationResponsePolicy
        /// Unread page events kept per subscriber of ``WebViewBridge/pageState``.
        public var pageEventBufferLimit: Int

        /// Creates settings; every parameter has the default described on its property.
        /// Main actor: the default world, `WKContentWorld.page`, is main-actor isolated.
        @MainActor
        public init(contentWorld: WKContentWorld = .page,
                    installsShim: Bool = true,
                    shimInMainFrameOnly: Bool = true,
                    navigationSignal: NavigationSignal = .loadingObservation,
                    responsePolicy: NavigationResponsePolicy = NavigationResponsePolicy(),
                    pageEventBufferLimit: Int = PageStateTracker.defaultBufferLimit) {
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
