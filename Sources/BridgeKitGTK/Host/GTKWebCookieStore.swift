#if WebKitGTK
public import BridgeCookies
import Foundation

/// BridgeCookies' `WebCookieStore` over WebKitGTK's cookie manager (``GTKCookieStore``), so
/// `CookieSync` works the same on Linux as on Apple platforms. HttpOnly cookies are read and
/// written too: the cookie manager is not a script API.
///
/// Thread: every call hops to the main actor (GTK's thread).
public final class GTKWebCookieStore: WebCookieStore {
    private let store: MainActorBox<GTKCookieStore>

    /// Creates a store over `cookies` (a view's ``GTKWebView/cookies``).
    @MainActor
    public init(_ cookies: GTKCookieStore) {
        store = MainActorBox(cookies)
    }

    public func allCookies() async throws -> [Cookie] {
        try await fetchAll().map(Self.cookie)
    }

    public func setCookie(_ cookie: Cookie) async throws {
        try await add(Self.gtkCookie(cookie))
    }

    public func deleteCookie(_ cookie: Cookie) async throws {
        try await delete(Self.gtkCookie(cookie))
    }

    @MainActor private func fetchAll() async throws -> [GTKCookie] { try await store.value.allCookies() }
    @MainActor private func add(_ cookie: GTKCookie) async throws { try await store.value.add(cookie) }
    @MainActor private func delete(_ cookie: GTKCookie) async throws { try await store.value.delete(cookie) }

    /// libsoup writes a domain cookie's domain with a leading dot; a host-only cookie without.
    static func gtkCookie(_ cookie: Cookie) -> GTKCookie {
        let bare = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain
        return GTKCookie(
            name: cookie.name, value: cookie.value, domain: cookie.isHostOnly ? bare : "." + bare,
            path: cookie.path, expires: cookie.expires, isSecure: cookie.isSecure,
            isHTTPOnly: cookie.isHTTPOnly, sameSite: cookie.sameSite?.rawValue)
    }

    static func cookie(_ gtk: GTKCookie) -> Cookie {
        let isDomainCookie = gtk.domain.hasPrefix(".")
        return Cookie(
            name: gtk.name, value: gtk.value, domain: isDomainCookie ? String(gtk.domain.dropFirst()) : gtk.domain,
            isHostOnly: !isDomainCookie, path: gtk.path, expires: gtk.expires, isSecure: gtk.isSecure,
            isHTTPOnly: gtk.isHTTPOnly, sameSite: gtk.sameSite.flatMap { CookieSameSite(attributeValue: $0) })
    }
}
#endif
