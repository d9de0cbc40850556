/// A cookie the `document.cookie` script left out because a script cannot express it, and why.
///
/// ``DocumentCookieScript`` never truncates or rewrites a cookie to make it fit: it leaves the
/// cookie out and reports it here, so the host can carry it another way (the `Cookie` header,
/// or ``CookieSync/pushJarToStore()``, which sets cookies through the engine's native API).
/// Names a cookie, never its value, so it can be logged.
public struct DocumentCookieOmission: Sendable, Hashable, CustomStringConvertible {
    /// The left-out cookie's identity.
    public var cookie: CookieKey
    /// Why a script cannot express it.
    public var reason: Reason

    /// Creates an omission record.
    public init(cookie: CookieKey, reason: Reason) {
        self.cookie = cookie
        self.reason = reason
    }

    /// `name@domain/path: reason`, for logs. Never contains the value.
    public var description: String { "\(cookie): \(reason)" }
}
