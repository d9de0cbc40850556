/// A `Set-Cookie` string the jar refused, and why.
public struct CookieRejection: Sendable, Hashable {
    /// The refused `Set-Cookie` header value, as received. It includes the cookie's value:
    /// log ``reason`` rather than this in production.
    public var setCookie: String
    /// The rule that refused it.
    public var reason: CookieError

    /// Creates a rejection record.
    public init(setCookie: String, reason: CookieError) {
        self.setCookie = setCookie
        self.reason = reason
    }
}
