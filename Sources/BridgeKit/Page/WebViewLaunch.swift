#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

/// How a web view is brought up so that its very first request already carries the right user
/// agent (field case R47), and whatever must precede the first load (attaching the bridge,
/// filling the cookie store) happens before it.
///
/// Order, always: (1) the application name is set on the configuration, (2) the web view is
/// created, (3) a replacement user agent, if any, is set on the view, (4) the `beforeFirstLoad`
/// work runs, (5) the first request is loaded. No step reads the user agent from the page.
///
/// ```swift
/// let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"),
///                            request: URLRequest(url: startURL))
/// let webView = try await launch.start(with: WebKitViewConfigurator(configuration)) { webView in
///     bridge = try WebViewBridge.attach(router: router, to: webView)
///     try await CookieSync(jar: jar, webView: webView).pushJarToStore()   // BridgeCookies
/// }
/// ```
public struct WebViewLaunch: Sendable {
    /// The user agent to configure.
    public var userAgent: UserAgentPolicy
    /// The first request; `nil` creates the view without loading anything.
    public var request: URLRequest?

    /// Creates a launch plan.
    /// - Parameters:
    ///   - userAgent: the user agent policy; default the engine's own.
    ///   - request: the first request, or `nil`.
    public init(userAgent: UserAgentPolicy = .engineDefault, request: URLRequest? = nil) {
        self.userAgent = userAgent
        self.request = request
    }

    /// Steps 1–3: sets the application name, creates the web view, sets a replacement user
    /// agent. Nothing is loaded.
    /// - Parameter configurator: the engine's configurator.
    /// - Returns: the created web view.
    @MainActor
    public func makeWebView<Configurator: WebViewConfigurator>(with configurator: Configurator) -> Configurator.WebView
    {
        if userAgent.applicationToken != nil {
            configurator.applicationNameForUserAgent =
                userAgent.applicationName(appendingTo: configurator.applicationNameForUserAgent)
        }
        let webView = configurator.makeWebView()
        if let replacement = userAgent.replacementUserAgent {
            configurator.setCustomUserAgent(replacement, on: webView)
        }
        return webView
    }

    /// Steps 1–5: creates the web view, runs `beforeFirstLoad`, then loads ``request``.
    ///
    /// - Parameters:
    ///   - configurator: the engine's configurator.
    ///   - beforeFirstLoad: work that must finish before the first request, such as attaching
    ///     the bridge and `CookieSync.pushJarToStore()` (BridgeCookies); runs on the main actor.
    /// - Returns: the web view, loading ``request``.
    /// - Throws: what `beforeFirstLoad` throws; then nothing is loaded (the view is created
    ///   but idle).
    @MainActor
    public func start<Configurator: WebViewConfigurator>(
        with configurator: Configurator,
        beforeFirstLoad: @MainActor (Configurator.WebView) async throws -> Void
    ) async rethrows -> Configurator.WebView {
        let webView = makeWebView(with: configurator)
        try await beforeFirstLoad(webView)
        if let request {
            configurator.load(request, in: webView)
        }
        return webView
    }

    /// Steps 1–3 and 5: creates the web view and loads ``request`` at once (nothing to prepare).
    /// - Parameter configurator: the engine's configurator.
    /// - Returns: the web view, loading ``request``.
    @MainActor
    public func start<Configurator: WebViewConfigurator>(with configurator: Configurator) -> Configurator.WebView {
        let webView = makeWebView(with: configurator)
        if let request {
            configurator.load(request, in: webView)
        }
        return webView
    }
}
