#if canImport(WebKit)
public import WebKit

/// Helpers the app calls from its **own** `WKNavigationDelegate` (BridgeKit never becomes the
/// delegate). Each one is optional; together they give exact page generations and page errors.
///
/// ```swift
/// func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
///     bridge.navigationCommitted()        // with navigationSignal: .appReported
/// }
/// func webView(_ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
///              decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void) {
///     bridge.navigationResponseReceived(navigationResponse)
///     decisionHandler(.allow)
/// }
/// func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error) {
///     bridge.provisionalNavigationFailed(error)
/// }
/// ```
extension WebViewBridge {
    /// Reports `webView(_:didCommit:)`: a new document replaced the old one, so the router
    /// starts a new page generation (the old document's pending calls settle with `navigated`,
    /// their tasks are cancelled). Not `didStartProvisionalNavigation`: a navigation that starts
    /// may never commit (a 204 response, a download, a cancelled navigation), and the document
    /// that stays keeps its calls. Use with ``NavigationSignal/appReported``; with the default
    /// signal it is harmless (the document's notice follows, before its first call, and starts one
    /// more generation that no call belongs to).
    public func navigationCommitted() {
        generations.navigationCommitted()
    }

    /// Reports `webView(_:decidePolicyFor:decisionHandler:)` for a navigation response:
    /// classifies it with ``Configuration/responsePolicy`` (main frame: status outside 2xx is
    /// an error; non-HTTP responses and subframes never are) and records an error in
    /// ``pageState`` as ``PageEvent/loadFailed(_:)`` once the navigation commits (the new
    /// document's notice, or ``navigationCommitted()``): a navigation that never commits (a
    /// download, a response the app cancels) leaves the page on screen without an error. Reads
    /// `response` and `isForMainFrame`.
    ///
    /// The decision stays the app's: call the decision handler yourself (usually `.allow`, so
    /// the server's error page shows).
    /// - Returns: the page error, or `nil` when the response is fine.
    @discardableResult
    public func navigationResponseReceived(_ navigationResponse: WKNavigationResponse) -> PageLoadError? {
        generations.responseReceived(navigationResponse.response, isMainFrame: navigationResponse.isForMainFrame)
    }

    /// Reports `webView(_:didFailProvisionalNavigation:withError:)` (no response arrived: DNS,
    /// TLS, offline). Cancellations (`NSURLErrorCancelled`, WebKit's "frame load interrupted")
    /// are not errors and return `nil`.
    /// - Returns: the page error recorded in ``pageState``, or `nil`.
    @discardableResult
    public func provisionalNavigationFailed(_ error: any Error) -> PageLoadError? {
        generations.loadFailed(error)
    }

    /// Reports `webView(_:didFail:withError:)` (the load failed after its document was
    /// committed). Cancellations return `nil`.
    /// - Returns: the page error recorded in ``pageState``, or `nil`.
    @discardableResult
    public func navigationFailed(_ error: any Error) -> PageLoadError? {
        generations.loadFailed(error)
    }

    /// Reports `webViewWebContentProcessDidTerminate(_:)`: the page is gone, so its pending
    /// calls settle (a new page generation) and ``pageState`` records
    /// ``PageLoadError/webContentProcessTerminated(reason:)``. Reload the web view to recover;
    /// the shim is injected again.
    public func webContentProcessTerminated() {
        generations.webContentProcessTerminated()
    }
}
#endif
