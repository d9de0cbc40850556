#if canImport(WebKit)
public import WebKit

/// The ``WebViewConfigurator`` for `WKWebView`: wraps a `WKWebViewConfiguration` so that
/// ``WebViewLaunch`` sets the user agent before the web view exists (field case R47).
///
/// - ``applicationNameForUserAgent`` is `WKWebViewConfiguration.applicationNameForUserAgent`
///   (iOS 9 / macOS 10.11). WebKit copies the configuration when the view is created, so it
///   must be set first; on iOS its default is `Mobile/<build>`, which ``UserAgentPolicy``
///   keeps and appends to.
/// - ``makeWebView()`` is `WKWebView(frame:configuration:)` (iOS 8 / macOS 10.10).
/// - ``setCustomUserAgent(_:on:)`` is `WKWebView.customUserAgent` (iOS 9 / macOS 10.11),
///   used only for ``UserAgentPolicy/replacingEntireUserAgent(_:)``.
/// - ``load(_:in:)`` is `WKWebView.load(_:)` (iOS 8 / macOS 10.10).
///
/// ```swift
/// let configuration = WKWebViewConfiguration()
/// let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"), request: URLRequest(url: startURL))
/// let webView = launch.makeWebView(with: WebKitViewConfigurator(configuration))
/// ```
@MainActor
public final class WebKitViewConfigurator: WebViewConfigurator {
    /// The configuration the web view is created from.
    public let configuration: WKWebViewConfiguration
    /// The frame the web view is created with; default `.zero` (Auto Layout sizes it).
    public var frame: CGRect

    /// Wraps `configuration`.
    /// - Parameters:
    ///   - configuration: the configuration to fill and create the view from.
    ///   - frame: the initial frame of the view.
    public init(_ configuration: WKWebViewConfiguration, frame: CGRect = .zero) {
        self.configuration = configuration
        self.frame = frame
    }

    /// `WKWebViewConfiguration.applicationNameForUserAgent`.
    public var applicationNameForUserAgent: String? {
        get { configuration.applicationNameForUserAgent }
        set { configuration.applicationNameForUserAgent = newValue }
    }

    /// Creates the web view with `WKWebView(frame:configuration:)`.
    public func makeWebView() -> WKWebView {
        WKWebView(frame: frame, configuration: configuration)
    }

    /// Sets `webView.customUserAgent`, replacing the whole user agent.
    public func setCustomUserAgent(_ userAgent: String, on webView: WKWebView) {
        webView.customUserAgent = userAgent
    }

    /// Starts loading with `webView.load(_:)`.
    public func load(_ request: URLRequest, in webView: WKWebView) {
        webView.load(request)
    }
}
#endif
