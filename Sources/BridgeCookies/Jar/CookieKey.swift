/// The identity of a stored cookie: RFC 6265 §5.3 step 11 replaces a cookie with the same
/// name, domain and path.
public struct CookieKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The cookie name.
    public var name: String
    /// The domain, lowercased, without a leading dot.
    public var domain: String
    /// The cookie path.
    public var path: String

    /// Creates a key. `domain` should already be lowercased without a leading dot
    /// (``Cookie/key`` does this for you).
    public init(name: String, domain: String, path: String) {
        self.name = name
        self.domain = domain
        self.path = path
    }

    /// Orders by domain, then path, then name (byte order), for stable listings.
    public static func < (lhs: CookieKey, rhs: CookieKey) -> Bool {
        (lhs.domain, lhs.path, lhs.name) < (rhs.domain, rhs.path, rhs.name)
    }

    /// `name@domain/path`, for logs. Never contains the value.
    public var description: String { "\(name)@\(domain)\(path)" }
}
