public import Foundation

/// Why a page did not load as the app intended, in the same form for every engine.
///
/// Made by ``NavigationResponsePolicy`` from a main-frame response or a load failure, and by
/// hosts for a terminated web content process. Cancelled navigations are never a
/// `PageLoadError` (see ``NavigationResponsePolicy/isCancellation(domain:code:)``).
public enum PageLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The main frame's final HTTP response had a status outside the accepted range (default
    /// 2xx). The page (the server's error page) still loads.
    /// - Parameters:
    ///   - code: the HTTP status code, for example 404.
    ///   - url: the response's URL.
    case httpStatus(code: Int, url: URL?)
    /// The load failed: before a response (DNS, TLS, offline — `didFailProvisionalNavigation`,
    /// WebKitGTK `load-failed` before commit) or after it (`didFail`).
    /// - Parameters:
    ///   - domain: the error domain, for example `NSURLErrorDomain`.
    ///   - code: the error code in that domain, for example -1009 (offline).
    ///   - url: the failing URL, when the engine says.
    ///   - message: the engine's localized description.
    case loadFailed(domain: String, code: Int, url: URL?, message: String)
    /// The web content process ended (`webViewWebContentProcessDidTerminate`, WebKitGTK
    /// `web-process-terminated`); the page is gone until the app reloads it.
    /// - Parameter reason: the engine's reason, when it gives one (WebKitGTK: `"crashed"`,
    ///   `"exceeded-memory-limit"`).
    case webContentProcessTerminated(reason: String?)

    /// The URL concerned, when known.
    public var url: URL? {
        switch self {
        case .httpStatus(_, let url), .loadFailed(_, _, let url, _): url
        case .webContentProcessTerminated: nil
        }
    }

    /// A one-line explanation for logs (no response body, no query values beyond the URL).
    public var description: String {
        switch self {
        case .httpStatus(let code, let url):
            "HTTP status \(code) for \(url?.absoluteString ?? "an unknown URL")"
        case .loadFailed(let domain, let code, let url, let message):
            "Load failed (\(domain) \(code)) for \(url?.absoluteString ?? "an unknown URL"): \(message)"
        case .webContentProcessTerminated(let reason):
            "The web content process ended" + (reason.map { " (\($0))" } ?? "")
        }
    }
}
