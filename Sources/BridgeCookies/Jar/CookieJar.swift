import BridgeKit
public import Foundation

/// A cookie jar that follows RFC 6265 §5: it parses `Set-Cookie`, stores by name + domain +
/// path, expires against an injectable clock, and answers the `Cookie` header for any URL.
///
/// Thread-safe: all state sits behind one lock (`Locked`), so any thread or actor may call any method.
/// The jar stores names and values as received (RFC 6265 §5.2, ``CookieValuePolicy``) and is
/// strict where it writes: the `Cookie` header carries the stored octets (or the opt-in
/// ``Configuration/outputEncoding``), and the `document.cookie` script leaves out and reports
/// what a script cannot express (``DocumentCookiePlan``).
///
/// ```swift
/// let jar = CookieJar()
/// jar.capture(setCookieHeaders: ["sid=abc; Path=/; Secure; HttpOnly"], from: loginURL)
/// request.setValue(jar.cookieHeader(for: request.url!), forHTTPHeaderField: "Cookie")
/// ```
public final class CookieJar: Sendable {
    /// The limits and public-suffix guard in force.
    public let configuration: Configuration
    private let clock: @Sendable () -> Date
    let storage: Locked<CookieStorage>
    /// The cookies a web view's store held at the last ``CookieSync`` push or pull, with the
    /// jar's revision of each then (``CookieStorage/Entry/revision``); one the store no longer
    /// holds was deleted in the web view (``CookieSync/pullStoreIntoJar()``). Kept by the jar, so
    /// every sync of it shares it.
    let webStoreRecord = Locked([CookieKey: UInt64]())
    /// Runs this jar's ``CookieSync`` pushes and pulls one at a time.
    let syncTurns = SyncTurns()

    /// The revision of each stored cookie (``CookieStorage/Entry/revision``).
    var revisions: [CookieKey: UInt64] { storage.withLock { $0.entries.mapValues(\.revision) } }

    /// Removes each cookie of `revisions` that was not stored again since it had that revision.
    func removeUnchanged(_ revisions: [CookieKey: UInt64]) {
        storage.withLock { $0.removeUnchanged(revisions) }
    }

    /// Creates an empty jar.
    ///
    /// - Parameters:
    ///   - configuration: limits (RFC 6265 §6.1 minimums by default) and extra public suffixes.
    ///   - clock: the current time; inject a fixed clock in tests. Called on the caller's
    ///     thread, outside the jar's lock, once per operation.
    public init(configuration: Configuration = Configuration(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.clock = clock
        self.storage = Locked(CookieStorage(configuration: configuration))
    }

    /// The jar's current time (its clock).
    public var now: Date { clock() }

    /// Every unexpired cookie, ordered by domain, then path, then name.
    public var cookies: [Cookie] {
        let now = clock()
        return storage.withLock { $0.unexpired(now: now) }.map(\.cookie)
    }

    /// Every unexpired cookie in creation order: creation time, then order of arrival
    /// (RFC 6265 §5.4 step 2's tie-breaker), the order ``CookieSync/pushJarToStore()`` sets them.
    var cookiesInCreationOrder: [Cookie] {
        let now = clock()
        return storage.withLock { $0.unexpiredInCreationOrder(now: now) }.map(\.cookie)
    }

    // MARK: - Adding

    /// Stores the cookies of `Set-Cookie` header values received in a response from `url`
    /// (RFC 6265 §5.2, §5.3; source: HTTP), for example from a navigation response ("log in once").
    ///
    /// - Parameters:
    ///   - setCookieHeaders: `Set-Cookie` header values, one header per element, each one cookie
    ///     whatever commas it holds (RFC 6265 §3: a server never folds `Set-Cookie` fields). A
    ///     value Foundation folded from several fields (`HTTPURLResponse`) goes to
    ///     ``capture(response:)``, which splits it.
    ///   - url: the URL of the response; its host scopes host-only cookies and checks `Domain`.
    /// - Returns: the cookies refused and why; the others are stored. Refusing is normal
    ///   browser behaviour (a foreign `Domain`, a `Secure` cookie over `http`), so the result
    ///   may be ignored. Each record holds the header text, value included: log with care.
    @discardableResult
    public func capture(setCookieHeaders: [String], from url: URL) -> [CookieRejection] {
        store(setCookieHeaders, from: url)
    }

    /// Stores the cookies of `headers`, one `Set-Cookie` value each, received from `url`.
    func store(_ headers: [String], from url: URL) -> [CookieRejection] {
        let now = clock()
        return storage.withLock { storage in
            var rejected: [CookieRejection] = []
            for header in headers {
                do throws(CookieError) {
                    try storage.receive(header, from: url, source: .http, now: now)
                } catch {
                    rejected.append(CookieRejection(setCookie: header, reason: error))
                }
            }
            return rejected
        }
    }

    /// Stores one `Set-Cookie` header value received for `url` (RFC 6265 §5.2, §5.3).
    ///
    /// - Parameters:
    ///   - header: one `Set-Cookie` value (not folded).
    ///   - url: the request URL (for `document.cookie`, the document's URL).
    ///   - source: ``CookieSource/http`` for a response, ``CookieSource/nonHTTP`` for a script.
    /// - Throws: ``CookieError`` naming the rule that refused the cookie. An expired cookie
    ///   (`Max-Age=0`, a past `Expires`) is not an error: it deletes the stored one.
    public func setCookie(_ header: String, from url: URL, source: CookieSource = .http) throws(CookieError) {
        let now = clock()
        try storage.withLock { storage throws(CookieError) in
            try storage.receive(header, from: url, source: source, now: now)
        }
    }

    /// Stores a cookie the host app made (an HTTP API: it may be HttpOnly), replacing one
    /// with the same name, domain and path and keeping that one's creation time (§5.3 step 11).
    ///
    /// The cookie is normalised by ``CookieValuePolicy``. A domain cookie for a public suffix
    /// (``Configuration/isPublicSuffix(_:)``) becomes host-only, as §5.3 step 5 does when the
    /// `Domain` equals the request host; an IP-address domain is always host-only. A cookie
    /// already expired deletes the stored one.
    /// - Throws: ``CookieError`` when the policy, a `__Secure-`/`__Host-` prefix rule or the
    ///   size limit refuses it.
    public func set(_ cookie: Cookie) throws(CookieError) {
        var normalized = try CookieValuePolicy.normalized(cookie)
        if !normalized.isHostOnly && configuration.isPublicSuffix(normalized.domain) {
            normalized.isHostOnly = true
        }
        let now = clock()
        try storage.withLock { storage throws(CookieError) in
            try storage.store(normalized, source: .http, requestIsSecure: nil, now: now)
        }
    }

    /// Stores a cookie read from a web engine's store (``CookieSync/pullStoreIntoJar()``), as
    /// ``set(_:)`` does, except that a cookie new to the jar has no last-access time yet: over
    /// the jar's limits, such cookies are evicted before every cookie the jar already held.
    func setPulled(_ cookie: Cookie) throws(CookieError) {
        var normalized = try CookieValuePolicy.normalized(cookie)
        if !normalized.isHostOnly && configuration.isPublicSuffix(normalized.domain) {
            normalized.isHostOnly = true
        }
        let now = clock()
        try storage.withLock { storage throws(CookieError) in
            try storage.store(normalized, source: .http, requestIsSecure: nil, now: now, isCopy: true)
        }
    }

    // MARK: - Removing

    /// Removes the cookie stored under `key`. - Returns: the removed cookie, or `nil`.
    @discardableResult
    public func remove(_ key: CookieKey) -> Cookie? {
        storage.withLock { $0.remove(key) }
    }

    /// Removes every cookie.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// Removes the cookies that have expired by the clock's current time. Expired cookies are
    /// never returned or sent even when still held; this frees their memory.
    public func removeExpired() {
        let now = clock()
        storage.withLock { $0.purgeExpired(now: now) }
    }

    // MARK: - Reading (RFC 6265 §5.4)

    /// The cookies to send with a request to `url`, in `Cookie` header order (RFC 6265 §5.4):
    /// unexpired; host-only cookies only for exactly their host, domain cookies for the domain
    /// and its subdomains (§5.1.3); path-matching (§5.1.4); Secure cookies only for `https`/`wss`
    /// — with no exception for `http://localhost` (field case R41, matching WKWebView). Longer
    /// paths first, then earlier creation. Updates each cookie's last-access-time.
    ///
    /// - Parameters:
    ///   - url: the request URL. A URL cookies do not apply to (no host; a scheme other than
    ///     `http`, `https`, `ws`, `wss`) gets an empty array.
    ///   - includeHTTPOnly: `false` to answer as a non-HTTP API (what `document.cookie` reads).
    public func cookies(for url: URL, includeHTTPOnly: Bool = true) -> [Cookie] {
        guard let request = CookieRequest(url) else { return [] }
        let now = clock()
        return storage.withLock {
            $0.select(for: request, matchPath: true, httpAPI: includeHTTPOnly, now: now, touch: true)
        }
    }

    /// The `Cookie` header value for a request to `url` (first load, and again for each
    /// redirect: it is a function of the jar and the URL only): `name=value` pairs of
    /// ``cookies(for:includeHTTPOnly:)`` joined by `"; "` (field case R39). Names and values
    /// are the stored octets (RFC 6265 §5.4 step 4), or percent-encoded when
    /// ``Configuration/outputEncoding`` is ``CookieOutputEncoding/percentEncodedNonASCII``.
    /// - Returns: `nil` when no cookie applies (send no `Cookie` header then).
    public func cookieHeader(for url: URL) -> String? {
        let selected = cookies(for: url)
        return selected.isEmpty ? nil : CookieRules.cookieString(selected, encoding: configuration.outputEncoding)
    }
}
