/// Where a cookie comes from, for RFC 6265 §5.3 steps 10 and 11.
public enum CookieSource: Sendable, Hashable {
    /// An HTTP response or the host app (the "HTTP API"): may set and replace HttpOnly cookies.
    case http
    /// A script (`document.cookie`, the "non-HTTP API"): may neither set nor replace HttpOnly cookies.
    case nonHTTP
}
