/// A web engine's cookie store, as ``CookieSync`` needs it.
///
/// Implementations: `WebKitCookieStore` (Apple, wraps `WKHTTPCookieStore`), the WebKitGTK
/// store in BridgeKitGTK, and ``InMemoryCookieStore`` for tests.
///
/// The requirements are `async` and not isolated, so an implementation may be isolated to an
/// actor: WebKit's store is `@MainActor`, and a `@MainActor` class satisfies these
/// requirements with `@MainActor` methods (callers hop to the main actor when they await).
/// Every value crossing is a Sendable ``Cookie``, never an engine object.
public protocol WebCookieStore: Sendable {
    /// Every cookie the store holds, HttpOnly ones included.
    /// - Throws: when the engine cannot be read.
    func allCookies() async throws -> [Cookie]

    /// Adds a cookie, replacing one with the same name, domain and path. Returns once the
    /// engine has stored it (for WebKit: its completion handler ran).
    /// - Throws: when the cookie cannot be expressed for the engine or the engine refuses it.
    func setCookie(_ cookie: Cookie) async throws

    /// Removes the cookie with the same name, domain (with or without a leading dot) and
    /// path as `cookie`. Removing a cookie that is not there is not an error.
    /// - Throws: when the engine cannot be changed.
    func deleteCookie(_ cookie: Cookie) async throws
}
