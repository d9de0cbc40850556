public import Foundation

/// One HTTP cookie, as the RFC 6265 §5.3 storage model describes it.
///
/// A plain value: build one with the memberwise initializer (for example from a WebKitGTK
/// `SoupCookie` or a server response), hand it to ``CookieJar/set(_:)``, read it back from
/// ``CookieJar/cookies``. The jar keeps name and value as given (RFC 6265 §5.2) and normalises
/// the rest (see ``CookieValuePolicy``): the domain without a leading dot, non-ASCII in the
/// path percent-encoded, a creation time filled in.
public struct Cookie: Sendable, Hashable {
    /// The cookie name, as received (RFC 6265 §5.2: any text but `;`, `=` and controls, without
    /// outer whitespace).
    public var name: String
    /// The cookie value, as received (RFC 6265 §5.2; quotes, spaces, commas and non-ASCII
    /// kept), exactly as sent in a `Cookie` header.
    public var value: String
    /// The domain, lowercased, without a leading dot: the request host for a host-only cookie,
    /// the `Domain` attribute otherwise. A leading dot given here marks a domain cookie (the
    /// Foundation and WebKit convention); the jar removes it and sets ``isHostOnly`` to `false`.
    public var domain: String
    /// Whether the cookie is sent only to exactly ``domain`` (RFC 6265 §5.3 step 6, the
    /// host-only-flag: the response had no `Domain` attribute). When `false` it is also sent to
    /// every subdomain (§5.1.3 domain-match).
    public var isHostOnly: Bool
    /// The path the cookie applies to (RFC 6265 §5.1.4); starts with `/`.
    public var path: String
    /// When the cookie expires (UTC instant), or `nil` for a session cookie (RFC 6265 §5.3
    /// step 3: persistent-flag false).
    public var expires: Date?
    /// Whether the cookie is sent only over secure channels, `https` and `wss` (RFC 6265 §4.1.2.5).
    public var isSecure: Bool
    /// Whether scripts are kept away from the cookie (RFC 6265 §4.1.2.6): it never appears in a
    /// `document.cookie` script and a non-HTTP source cannot overwrite it (§5.3 step 11).
    public var isHTTPOnly: Bool
    /// The SameSite attribute (draft-ietf-httpbis-rfc6265bis), or `nil` when absent or unknown.
    public var sameSite: CookieSameSite?
    /// Whether the cookie is partitioned by top-level site (the `Partitioned` attribute of
    /// CHIPS, draft-cutler-httpbis-partitioned-cookies). Kept, written to `document.cookie`
    /// scripts and the file; the jar has no top-level site to partition by, and Foundation's
    /// `HTTPCookie` cannot carry it. Requires ``isSecure``, as in browsers.
    public var isPartitioned: Bool
    /// When the cookie was first stored (RFC 6265 §5.3 creation-time), or `nil` for a cookie not
    /// yet stored: the jar then uses its clock. Replacing a cookie keeps the old creation time
    /// (§5.3 step 11). Orders cookies of equal path length in a `Cookie` header (§5.4).
    public var creationTime: Date?

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: the cookie name; must not be empty.
    ///   - value: the cookie value; may be empty.
    ///   - domain: the host (host-only cookie) or domain (domain cookie); a leading dot means
    ///     a domain cookie.
    ///   - isHostOnly: `true` (the default) for a cookie sent only to `domain` itself.
    ///   - path: the cookie path; defaults to `/`.
    ///   - expires: the expiry instant, or `nil` (the default) for a session cookie.
    ///   - isSecure: send only over `https`/`wss`.
    ///   - isHTTPOnly: hide from scripts.
    ///   - sameSite: the SameSite attribute, if any.
    ///   - isPartitioned: the CHIPS `Partitioned` attribute.
    ///   - creationTime: the creation time, or `nil` to let the jar stamp its clock's time.
    public init(
        name: String,
        value: String,
        domain: String,
        isHostOnly: Bool = true,
        path: String = "/",
        expires: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: CookieSameSite? = nil,
        isPartitioned: Bool = false,
        creationTime: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.isPartitioned = isPartitioned
        self.creationTime = creationTime
    }

    /// The SameSite value a browser enforces for this cookie: ``sameSite`` when the server sent
    /// a known one, otherwise ``CookieSameSite/lax`` — the "Lax-by-default" that
    /// draft-ietf-httpbis-rfc6265bis §5.6.7 allows and Chromium applies (WebKit and Firefox
    /// treat a missing SameSite as `None`). ``sameSite`` itself stays `nil`, so the cookie is
    /// written back exactly as it was received.
    public var effectiveSameSite: CookieSameSite { sameSite ?? .lax }

    /// Whether this is a session cookie (no expiry; RFC 6265 §5.3 persistent-flag false).
    public var isSession: Bool { expires == nil }

    /// The storage identity: name, domain (without a leading dot, lowercased) and path
    /// (RFC 6265 §5.3 step 11). The host-only flag is not part of it.
    public var key: CookieKey {
        var domain = Substring(domain)
        if domain.hasPrefix(".") { domain = domain.dropFirst() }
        return CookieKey(name: name, domain: domain.lowercased(), path: path)
    }

    /// Whether the cookie has expired at `now`: its expiry is at or before `now`.
    /// Session cookies never expire by time.
    public func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }
}
