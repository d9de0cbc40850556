#if canImport(WebKit)
import BridgeKit
public import WebKit

/// A ``WebCookieStore`` over WebKit's `WKHTTPCookieStore` (iOS 11, macOS 10.13), so
/// ``CookieSync`` can fill a web view's store from a ``CookieJar`` and read it back.
///
/// `WKHTTPCookieStore` and its completion blocks are `@MainActor` (WebKit commit 13873b2f,
/// iOS 18 / macOS 15 SDK), so this class is too; callers anywhere simply `await` its methods.
/// It uses the completion-handler forms (`getAllCookies(_:)`, `setCookie(_:completionHandler:)`,
/// `delete(_:completionHandler:)`) wrapped in continuations with a time limit (``timeout``), and converts to the Sendable
/// ``Cookie`` inside the main-actor completion, so no `HTTPCookie` crosses an actor boundary.
///
/// ```swift
/// let sync = CookieSync(jar: jar, store: WebKitCookieStore(webView.configuration.websiteDataStore))
/// try await sync.pushJarToStore()   // every cookie is set when this returns
/// webView.load(request)
/// ```
@MainActor
public final class WebKitCookieStore: WebCookieStore {
    /// The default of ``timeout``: 10 seconds.
    public static let defaultTimeout: Double = 10

    /// The wrapped WebKit store.
    public let cookieStore: WKHTTPCookieStore
    /// How long each wait on a `WKHTTPCookieStore` completion may take, in seconds; `nil` or
    /// `.infinity` (or more than about 584 years) waits without a limit, a negative value or NaN
    /// counts as 0. Default ``defaultTimeout``. A wait that takes longer throws a `timeout`
    /// ``BridgeError`` (a later completion is ignored), so a store that never answers (a web
    /// content process that is gone) cannot hold up the first load.
    public var timeout: Double?

    /// Wraps a cookie store, for example `WKWebsiteDataStore.default().httpCookieStore`.
    /// - Parameters:
    ///   - cookieStore: the store.
    ///   - timeout: see ``timeout``.
    public init(_ cookieStore: WKHTTPCookieStore, timeout: Double? = WebKitCookieStore.defaultTimeout) {
        self.cookieStore = cookieStore
        self.timeout = timeout
    }

    /// Wraps the cookie store of a website data store (`WKWebsiteDataStore.httpCookieStore`).
    public convenience init(_ dataStore: WKWebsiteDataStore, timeout: Double? = WebKitCookieStore.defaultTimeout) {
        self.init(dataStore.httpCookieStore, timeout: timeout)
    }

    /// Every cookie in the store, HttpOnly ones included (`getAllCookies(_:)`).
    /// - Throws: a `timeout` ``BridgeError`` after ``timeout`` seconds without an answer.
    public func allCookies() async throws -> [Cookie] {
        let store = cookieStore
        return try await CompletionWait.wait(seconds: timeout, operation: "WKHTTPCookieStore.getAllCookies") {
            complete in
            store.getAllCookies { httpCookies in
                complete(httpCookies.map { Cookie($0) })
            }
        }
    }

    /// Sets a cookie (`setCookie(_:completionHandler:)`); returns when WebKit has stored it.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` when Foundation cannot
    ///   make an `HTTPCookie` of it; a `timeout` ``BridgeError`` after ``timeout`` seconds.
    public func setCookie(_ cookie: Cookie) async throws {
        let httpCookie = try cookie.makeHTTPCookie()
        let store = cookieStore
        try await CompletionWait.wait(seconds: timeout, operation: "WKHTTPCookieStore.setCookie") {
            (complete: @escaping @Sendable (()) -> Void) in
            store.setCookie(httpCookie) {
                complete(())
            }
        }
    }

    /// Deletes every stored cookie with `cookie`'s name, domain (with or without a leading
    /// dot) and path (`delete(_:completionHandler:)`). The deleted `HTTPCookie`s are rebuilt
    /// from the store's own cookies, so the domain is spelled exactly as WebKit stored it.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` when a stored cookie
    ///   cannot be rebuilt as an `HTTPCookie`; a `timeout` ``BridgeError`` after ``timeout``
    ///   seconds (per WebKit call).
    public func deleteCookie(_ cookie: Cookie) async throws {
        let key = cookie.key
        let matching = try await allCookies().filter { $0.key == key }
        let store = cookieStore
        for stored in matching {
            let httpCookie = try stored.makeHTTPCookie()
            try await CompletionWait.wait(seconds: timeout, operation: "WKHTTPCookieStore.delete") {
                (complete: @escaping @Sendable (()) -> Void) in
                store.delete(httpCookie) {
                    complete(())
                }
            }
        }
    }
}
#endif
