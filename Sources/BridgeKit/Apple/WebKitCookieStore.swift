#if canImport(WebKit)
public import WebKit

/// A ``WebCookieStore`` over WebKit's `WKHTTPCookieStore` (iOS 11, macOS 10.13), so
/// ``CookieSync`` can fill a web view's store from a ``CookieJar`` and read it back.
///
/// `WKHTTPCookieStore` and its completion blocks are `@MainActor` (WebKit commit 13873b2f,
/// iOS 18 / macOS 15 SDK), so this class is too; callers anywhere simply `await` its methods.
/// It uses the completion-handler forms (`getAllCookies(_:)`, `setCookie(_:completionHandler:)`,
/// `delete(_:completionHandler:)`) wrapped in continuations, and converts to the Sendable
/// ``Cookie`` inside the main-actor completion, so no `HTTPCookie` crosses an actor boundary.
///
/// ```swift
/// let sync = CookieSync(jar: jar, store: WebKitCookieStore(webView.configuration.websiteDataStore))
/// try await sync.pushJarToStore()   // every cookie is set when this returns
/// webView.load(request)
/// ```
@MainActor
public final class WebKitCookieStore: WebCookieStore {
    /// The wrapped WebKit store.
    public let cookieStore: WKHTTPCookieStore

    /// Wraps a cookie store, for example `WKWebsiteDataStore.default().httpCookieStore`.
    public init(_ cookieStore: WKHTTPCookieStore) {
        self.cookieStore = cookieStore
    }

    /// Wraps the cookie store of a website data store (`WKWebsiteDataStore.httpCookieStore`).
    public convenience init(_ dataStore: WKWebsiteDataStore) {
        self.init(dataStore.httpCookieStore)
    }

    /// Every cookie in the store, HttpOnly ones included (`getAllCookies(_:)`).
    public func allCookies() async throws -> [Cookie] {
        let store = cookieStore
        return await withCheckedContinuation { (continuation: CheckedContinuation<[Cookie], Never>) in
            store.getAllCookies { httpCookies in
                continuation.resume(returning: httpCookies.map { Cookie($0) })
            }
        }
    }

    /// Sets a cookie (`setCookie(_:completionHandler:)`); returns when WebKit has stored it.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` when Foundation cannot
    ///   make an `HTTPCookie` of it.
    public func setCookie(_ cookie: Cookie) async throws {
        let httpCookie = try cookie.makeHTTPCookie()
        let store = cookieStore
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            store.setCookie(httpCookie) {
                continuation.resume()
            }
        }
    }

    /// Deletes every stored cookie with `cookie`'s name, domain (with or without a leading
    /// dot) and path (`delete(_:completionHandler:)`). The deleted `HTTPCookie`s are rebuilt
    /// from the store's own cookies, so the domain is spelled exactly as WebKit stored it.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` when a stored cookie
    ///   cannot be rebuilt as an `HTTPCookie`.
    public func deleteCookie(_ cookie: Cookie) async throws {
        let key = cookie.key
        let matching = try await allCookies().filter { $0.key == key }
        let store = cookieStore
        for stored in matching {
            let httpCookie = try stored.makeHTTPCookie()
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                store.delete(httpCookie) {
                    continuation.resume()
                }
            }
        }
    }
}
#endif
