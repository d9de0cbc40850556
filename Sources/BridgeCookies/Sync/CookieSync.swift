/// Copies cookies between a ``CookieJar`` and a web engine's ``WebCookieStore``.
///
/// Typical first load: `try await sync.pushJarToStore()` returns once *every* cookie is in the
/// web view's store; only then start loading (with ``CookieJar/cookieHeader(for:)`` on the
/// first request as well). After a login page ran, `pullStoreIntoJar()` brings the cookies it
/// set — HttpOnly ones included — back into the jar, ready to be saved.
public struct CookieSync: Sendable {
    /// The jar, the app's record of cookies.
    public let jar: CookieJar
    /// The engine's store.
    public let store: any WebCookieStore

    /// Creates a sync between `jar` and `store`.
    public init(jar: CookieJar, store: any WebCookieStore) {
        self.jar = jar
        self.store = store
    }

    /// Sets every unexpired cookie of the jar (HttpOnly ones included) in the store, and returns
    /// when every one of them has completed.
    ///
    /// The cookies are set one after another in the jar's creation order (creation time, then
    /// arrival): an engine stamps a cookie's creation time when it is set, and orders cookies of
    /// equal path length by it in its `Cookie` header (RFC 6265 §5.4 step 2), so the web view
    /// then sends them in the order the server set them. Does not delete store cookies the jar
    /// lacks.
    /// - Returns: the number of cookies set.
    /// - Throws: ``CookieSyncError`` listing every cookie that failed (the others were set)
    ///   — one error for the whole push, none dropped.
    @discardableResult
    public func pushJarToStore() async throws(CookieSyncError) -> Int {
        let cookies = jar.cookiesInCreationOrder
        var failures: [CookieSyncError.Failure] = []
        for cookie in cookies {
            do {
                try await store.setCookie(cookie)
            } catch {
                failures.append(CookieSyncError.Failure(cookie: cookie.key, error: error))
            }
        }
        guard failures.isEmpty else {
            throw CookieSyncError(
                failures: failures.sorted { ($0.cookie ?? .empty) < ($1.cookie ?? .empty) },
                succeeded: cookies.count - failures.count)
        }
        return cookies.count
    }

    /// Reads every cookie of the store (HttpOnly ones included) into the jar, as the HTTP API
    /// (``CookieJar/set(_:)``): a cookie with the same name, domain and path is replaced, keeping
    /// its creation time. Expired store cookies are skipped. Jar cookies the store lacks stay.
    ///
    /// - Returns: the number of cookies taken into the jar.
    /// - Throws: ``CookieSyncError`` when the store cannot be read (one failure without a
    ///   cookie key) or when the jar refused cookies (one failure each, for example a value
    ///   with a `;` or a control character, which no `Set-Cookie` header can carry, refused by
    ///   ``CookieValuePolicy``); the other cookies were taken. Values with quotes, spaces,
    ///   commas, backslashes or non-ASCII text are taken as they are.
    @discardableResult
    public func pullStoreIntoJar() async throws(CookieSyncError) -> Int {
        let storeCookies: [Cookie]
        do {
            storeCookies = try await store.allCookies()
        } catch {
            throw CookieSyncError(failures: [CookieSyncError.Failure(cookie: nil, error: error)], succeeded: 0)
        }
        let now = jar.now
        var failures: [CookieSyncError.Failure] = []
        var taken = 0
        for cookie in storeCookies where !cookie.isExpired(at: now) {
            do throws(CookieError) {
                try jar.set(cookie)
                taken += 1
            } catch {
                failures.append(CookieSyncError.Failure(cookie: cookie.key, error: error))
            }
        }
        guard failures.isEmpty else { throw CookieSyncError(failures: failures, succeeded: taken) }
        return taken
    }
}

extension CookieKey {
    /// Sorts before every real key.
    static let empty = CookieKey(name: "", domain: "", path: "")
}
