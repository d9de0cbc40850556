#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// Conversions between ``Cookie`` and Foundation's `HTTPCookie`, the carrier WebKit's
/// `WKHTTPCookieStore` takes and returns.
///
/// The host-only flag travels as the Foundation/WebKit domain convention: a domain cookie's
/// `HTTPCookie.domain` starts with `.`, a host-only cookie's does not. Both directions avoid
/// the Linux corelibs pitfalls (reference Part 2.1): `.secure` is the string `"TRUE"` (any
/// non-empty string, even `"FALSE"`, means secure there; a `Bool` is ignored), HttpOnly uses
/// the key `"HttpOnly"` (no public constant exists), expiry is given as `.expires` with a
/// `Date` and never as `.maximumAge` (ignored for version-0 cookies, and it makes Linux ignore
/// `.expires` too). SameSite exists only on Apple platforms, and Foundation models only
/// `Strict` and `Lax`: `SameSite=None` is dropped there, and on Linux SameSite is not carried.
extension Cookie {
    /// Reads a Foundation cookie. A `domain` starting with `.` gives a domain cookie.
    ///
    /// `HTTPCookie` has no creation time, so ``creationTime`` is `nil` (the jar stamps its
    /// clock). Values are taken as they are; ``CookieJar/set(_:)`` applies the policy.
    public init(_ httpCookie: HTTPCookie) {
        var domain = Substring(httpCookie.domain)
        let isDomainCookie = domain.hasPrefix(".")
        if isDomainCookie { domain = domain.dropFirst() }
        var sameSite: CookieSameSite?
        #if canImport(Darwin)
        let policy: HTTPCookieStringPolicy? = httpCookie.sameSitePolicy
        if policy == HTTPCookieStringPolicy.sameSiteStrict {
            sameSite = .strict
        } else if policy == HTTPCookieStringPolicy.sameSiteLax {
            sameSite = .lax
        }
        #endif
        self.init(
            name: httpCookie.name,
            value: httpCookie.value,
            domain: domain.lowercased(),
            isHostOnly: !isDomainCookie,
            path: httpCookie.path.isEmpty ? "/" : httpCookie.path,
            expires: httpCookie.expiresDate,
            isSecure: httpCookie.isSecure,
            isHTTPOnly: httpCookie.isHTTPOnly,
            sameSite: sameSite
        )
    }

    /// The `HTTPCookie.Properties` for this cookie, written as described on the extension.
    public var httpCookieProperties: [HTTPCookiePropertyKey: Any] {
        var domain = Substring(domain)
        if domain.hasPrefix(".") { domain = domain.dropFirst() }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name,
            .value: value,
            .path: path,
            .domain: isHostOnly && !self.domain.hasPrefix(".") ? String(domain) : "." + domain,
        ]
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        if let expires { properties[.expires] = expires }
        #if canImport(Darwin)
        switch sameSite {
        case .strict?: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict.rawValue
        case .lax?: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax.rawValue
        case .none?, nil: break
        }
        #endif
        return properties
    }

    /// Makes a Foundation cookie carrying this cookie.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` (`"properties"`) when
    ///   Foundation refuses the properties (for example an empty path).
    public func makeHTTPCookie() throws(CookieError) -> HTTPCookie {
        guard !name.isEmpty, let cookie = HTTPCookie(properties: httpCookieProperties) else {
            throw .invalidCookieAttribute(name: name, attribute: "properties")
        }
        return cookie
    }
}
