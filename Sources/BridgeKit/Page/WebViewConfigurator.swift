#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

/// The steps of bringing up a web view, as ``WebViewLaunch`` drives them.
///
/// Implementations: `WebKitViewConfigurator` on Apple platforms (wraps a
/// `WKWebViewConfiguration`); tests use a recording fake. The protocol exists so the *order*
/// of the steps is BridgeKit code, tested on Linux (field case R47: a user agent set after
/// loading started, or after an asynchronous read of `navigator.userAgent`, leaves the first
/// request with the default user agent).
///
/// ## Implementation requirements
/// - ``applicationNameForUserAgent`` reads and writes the configuration value the engine
///   appends to its user agent (`WKWebViewConfiguration.applicationNameForUserAgent`).
/// - ``makeWebView()`` creates the web view from the configuration; engines copy the
///   configuration at that moment, so later configuration changes do not reach the view.
/// - ``setCustomUserAgent(_:on:)`` replaces the whole user agent of a created view
///   (`WKWebView.customUserAgent`).
/// - ``load(_:in:)`` starts loading.
@MainActor
public protocol WebViewConfigurator: AnyObject {
    /// The engine's web view type.
    associatedtype WebView

    /// The application name the engine appends to its standard user agent; `nil` for none.
    var applicationNameForUserAgent: String? { get set }

    /// Creates the web view from the configuration.
    func makeWebView() -> WebView

    /// Replaces the whole user agent of `webView`.
    func setCustomUserAgent(_ userAgent: String, on webView: WebView)

    /// Starts loading `request` in `webView`.
    func load(_ request: URLRequest, in webView: WebView)
}
