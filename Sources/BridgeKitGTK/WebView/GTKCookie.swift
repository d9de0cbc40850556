#if WebKitGTK
public import Foundation

/// A cookie as WebKitGTK's cookie manager stores it (libsoup 3 `SoupCookie`), as a plain value.
/// BridgeKit maps it to and from its own cookie type.
public struct GTKCookie: Sendable, Equatable {
    /// Cookie name.
    public var name: String
    /// Cookie value, as stored (libsoup sends it to servers unquoted and unchanged).
    public var value: String
    /// Domain: a host name for a host-only cookie ("127.0.0.1"), or with a leading dot for a domain
    /// cookie (".example.com"), as libsoup keeps it.
    public var domain: String
    /// Path, e.g. "/".
    public var path: String
    /// Expiry, nil for a session cookie. libsoup keeps whole seconds.
    public var expires: Date?
    /// `Secure` attribute.
    public var isSecure: Bool
    /// `HttpOnly` attribute (not visible to `document.cookie`).
    public var isHTTPOnly: Bool
    /// `SameSite` attribute: "Lax" or "Strict"; nil when libsoup reports `SOUP_SAME_SITE_POLICY_NONE`,
    /// which is both "no attribute" and "None" (libsoup does not tell them apart). Writing "None"
    /// sets `SOUP_SAME_SITE_POLICY_NONE`.
    public var sameSite: String?

    /// Creates a cookie value.
    public init(
        name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
    }
}
#endif
