import BridgeKit

/// Copies cookies between a ``CookieJar`` and a web engine's ``WebCookieStore``.
///
/// Typical first load: `try await sync.pushJarToStore()` returns once *every* cookie is in the
/// web view's store; only then start loading (with ``CookieJar/cookieHeader(for:)`` on the
/// first request as well). After a login page ran, `pullStoreIntoJar()` brings the cookies it
/// set — HttpOnly ones included — back into the jar, ready to be saved; and the cookies the web
/// view deleted since (a logout: the server expired them, or a script did) leave the jar.
///
/// The jar remembers which cookies a store held at the last push or pull, and which version of
/// each (a revision the jar bumps whenever it stores a cookie), so a sync made later (at the next
/// start, after a login) sees what the web view deleted since. Sync a jar with one web view store
/// (one data store); a second store would take the first's cookies for deleted. The pushes and
/// pulls of one jar run one at a time, in the order they were started, whichever sync started
/// them.
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
        try await jar.syncTurns.run { () async throws(CookieSyncError) -> Int in try await push() }
    }

    private func push() async throws(CookieSyncError) -> Int {
        let cookies = jar.cookiesInCreationOrder
        let revisions = jar.revisions
        var failures: [CookieSyncError.Failure] = []
        for cookie in cookies {
            do {
                try await store.setCookie(cookie)
                jar.webStoreRecord.withLock { $0[cookie.key] = revisions[cookie.key] }
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
    /// its creation time. Expired store cookies are skipped.
    ///
    /// A jar cookie the store lacks stays, unless the store held it at the jar's last push or
    /// pull and the jar has not stored it since: the web view deleted it (a logout that expired
    /// the session), so it leaves the jar too, and a later save and push cannot log the user in
    /// again. One the app set or renewed in the jar since stays, whatever its value.
    ///
    /// A cookie a pull adds to the jar has not been accessed yet. So when the store holds more
    /// cookies than the jar's limits (``CookieJar/Configuration/maxCookies``; the engine has no
    /// total limit), the cookies of other sites a pull brings are evicted before those the jar
    /// already held, which keeps the app's login (the jar's own eviction order otherwise, RFC
    /// 6265 section 5.3: HttpOnly last, then least recently accessed, then oldest).
    ///
    /// - Returns: the number of cookies taken into the jar.
    /// - Throws: ``CookieSyncError`` when the store cannot be read (one failure without a
    ///   cookie key) or when the jar refused cookies (one failure each, for example a value
    ///   with a `;` or a control character, which no `Set-Cookie` header can carry, refused by
    ///   ``CookieValuePolicy``); the other cookies were taken. Values with quotes, spaces,
    ///   commas, backslashes or non-ASCII text are taken as they are.
    @discardableResult
    public func pullStoreIntoJar() async throws(CookieSyncError) -> Int {
        try await jar.syncTurns.run { () async throws(CookieSyncError) -> Int in try await pull() }
    }

    private func pull() async throws(CookieSyncError) -> Int {
        let storeCookies: [Cookie]
        do {
            storeCookies = try await store.allCookies()
        } catch {
            throw CookieSyncError(failures: [CookieSyncError.Failure(cookie: nil, error: error)], succeeded: 0)
        }
        let now = jar.now
        let live = storeCookies.filter { !$0.isExpired(at: now) }
        removeDeletedInStore(keeping: Set(live.map(\.key)))
        // The jar's own cookies first: set again, they count as used before any cookie new to
        // the jar can overflow its limits and evict them.
        let inJar = Set(jar.cookies.map(\.key))
        let ordered = live.filter { inJar.contains($0.key) } + live.filter { !inJar.contains($0.key) }
        var failures: [CookieSyncError.Failure] = []
        var taken = 0
        for cookie in ordered {
            do throws(CookieError) {
                try jar.setPulled(cookie)
                taken += 1
            } catch {
                failures.append(CookieSyncError.Failure(cookie: cookie.key, error: error))
            }
        }
        let revisions = jar.revisions
        jar.webStoreRecord.withLock { seen in
            seen = [:]
            for cookie in live { seen[cookie.key] = revisions[cookie.key] }
        }
        guard failures.isEmpty else { throw CookieSyncError(failures: failures, succeeded: taken) }
        return taken
    }

    /// Removes from the jar the cookies the store held at the last push or pull that it no
    /// longer holds (`present`), unless the jar stored them again since (the app set or renewed
    /// them, whatever their value).
    private func removeDeletedInStore(keeping present: Set<CookieKey>) {
        let gone = jar.webStoreRecord.withLock { seen in seen.filter { !present.contains($0.key) } }
        if !gone.isEmpty { jar.removeUnchanged(gone) }
    }
}

extension CookieKey {
    /// Sorts before every real key.
    static let empty = CookieKey(name: "", domain: "", path: "")
}
