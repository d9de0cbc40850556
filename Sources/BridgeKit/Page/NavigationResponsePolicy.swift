public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Decides which navigation responses and load failures are errors of the *page*.
///
/// - A main-frame HTTP response with a status in ``acceptedStatusCodes`` (default 200...299) is
///   fine; any other status is ``PageLoadError/httpStatus(code:url:)`` with the code and URL.
/// - A response that is not HTTP (`file:`, `data:`, a custom scheme whose handler answers with
///   a plain `URLResponse`) has no status and is fine.
/// - A subframe response is never an error of the page, whatever its status (an ad frame's 404
///   does not make the page fail).
/// - A load failure is ``PageLoadError/loadFailed(domain:code:url:message:)``, except
///   cancellations (``isCancellation(domain:code:)``), which are not errors at all.
///
/// Engine glue calls it: on Apple, `WebViewBridge` from the app's own
/// `webView(_:decidePolicyFor:decisionHandler:)` and `webView(_:didFailProvisionalNavigation:withError:)`;
/// on WebKitGTK, the host from `decide-policy` (response) and `load-failed`.
public struct NavigationResponsePolicy: Sendable, Hashable {
    /// The error domain of Foundation's URL loading errors (`NSURLErrorDomain`).
    public static let urlErrorDomain = "NSURLErrorDomain"
    /// The legacy WebKit error domain (`WebKitErrorDomain`) of frame-load errors.
    public static let webKitErrorDomain = "WebKitErrorDomain"
    /// `NSURLErrorCancelled`: the navigation was stopped (a new navigation replaced it,
    /// `stopLoading()`, a policy `.cancel`).
    public static let urlErrorCancelled = -999
    /// `WebKitErrorFrameLoadInterruptedByPolicyChange`: a policy decision ended the load (for
    /// example the response became a download).
    public static let frameLoadInterruptedByPolicyChange = 102
    /// `WebKitErrorPlugInWillHandleLoad`: a plug-in or the media player took the load over
    /// (a main-frame video URL); the content is shown, so it is no failure.
    public static let plugInWillHandleLoad = 204
    /// WebKitGTK's `GError` domains for the same cases (`WebKitError.h`): `WebKitNetworkError`
    /// (`WEBKIT_NETWORK_ERROR_CANCELLED` = 302), `WebKitPolicyError`
    /// (`WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE` = 102), `WebKitPluginError`
    /// (`WEBKIT_PLUGIN_ERROR_WILL_HANDLE_LOAD` = 204).
    public static let gtkNetworkErrorDomain = "WebKitNetworkError"
    /// See ``gtkNetworkErrorDomain``.
    public static let gtkPolicyErrorDomain = "WebKitPolicyError"
    /// See ``gtkNetworkErrorDomain``.
    public static let gtkPluginErrorDomain = "WebKitPluginError"

    /// The HTTP status codes that count as success for a main-frame response.
    public var acceptedStatusCodes: ClosedRange<Int>

    /// Creates a policy.
    /// - Parameter acceptedStatusCodes: successful statuses; default 200...299 (RFC 9110 §15.3).
    public init(acceptedStatusCodes: ClosedRange<Int> = 200...299) {
        self.acceptedStatusCodes = acceptedStatusCodes
    }

    /// Classifies a navigation response from its parts.
    /// - Parameters:
    ///   - statusCode: the HTTP status, or `nil` for a response that is not HTTP.
    ///   - url: the response's URL.
    ///   - isMainFrame: whether the response is for the main frame
    ///     (`WKNavigationResponse.isForMainFrame`).
    /// - Returns: the page's error, or `nil` when the response is fine for the page.
    public func classifyResponse(statusCode: Int?, url: URL?, isMainFrame: Bool) -> PageLoadError? {
        guard isMainFrame, let statusCode, !acceptedStatusCodes.contains(statusCode) else { return nil }
        return .httpStatus(code: statusCode, url: url)
    }

    /// Classifies a navigation response (`WKNavigationResponse.response`): an
    /// `HTTPURLResponse` is checked by status, anything else is fine.
    /// - Parameters:
    ///   - response: the response.
    ///   - isMainFrame: whether it is for the main frame.
    /// - Returns: the page's error, or `nil`.
    public func classifyResponse(_ response: URLResponse, isMainFrame: Bool) -> PageLoadError? {
        let statusCode = (response as? HTTPURLResponse)?.statusCode
        return classifyResponse(statusCode: statusCode, url: response.url, isMainFrame: isMainFrame)
    }

    /// Classifies a load failure from its parts.
    /// - Parameters:
    ///   - domain: the error domain.
    ///   - code: the error code.
    ///   - url: the failing URL, when known.
    ///   - message: the engine's description.
    /// - Returns: the page's error, or `nil` for a cancellation.
    public func classifyFailure(domain: String, code: Int, url: URL?, message: String) -> PageLoadError? {
        if Self.isCancellation(domain: domain, code: code) { return nil }
        return .loadFailed(domain: domain, code: code, url: url, message: message)
    }

    /// Classifies a load failure as an engine reports it (`didFailProvisionalNavigation`,
    /// `didFail`): domain and code through `NSError` bridging, the URL from the user info
    /// (`NSURLErrorFailingURLErrorKey`, which WebKit sets on its load errors).
    /// - Parameter error: the engine's error.
    /// - Returns: the page's error, or `nil` for a cancellation.
    public func classifyFailure(_ error: any Error) -> PageLoadError? {
        let nsError = error as NSError
        let url = nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL
        return classifyFailure(
            domain: nsError.domain, code: nsError.code, url: url, message: nsError.localizedDescription)
    }

    /// Whether a failure only means the navigation was cancelled or handed over, not that it
    /// failed: `NSURLErrorCancelled` (-999) in `NSURLErrorDomain`, and
    /// `WebKitErrorFrameLoadInterruptedByPolicyChange` (102) or `WebKitErrorPlugInWillHandleLoad`
    /// (204) in `WebKitErrorDomain` (WebKit `WebKitErrors.h`); on WebKitGTK their equivalents
    /// (see ``gtkNetworkErrorDomain``).
    public static func isCancellation(domain: String, code: Int) -> Bool {
        switch (domain, code) {
        case (urlErrorDomain, urlErrorCancelled),
            (webKitErrorDomain, frameLoadInterruptedByPolicyChange),
            (webKitErrorDomain, plugInWillHandleLoad),
            (gtkNetworkErrorDomain, 302),
            (gtkPolicyErrorDomain, frameLoadInterruptedByPolicyChange),
            (gtkPluginErrorDomain, plugInWillHandleLoad):
            true
        default:
            false
        }
    }
}
