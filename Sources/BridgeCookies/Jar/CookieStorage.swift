import Foundation

/// The cookie store as a value: RFC 6265 §5.3 storage, §6.1 limits and eviction, §5.4
/// selection. ``CookieJar`` wraps it in a `Locked`; every method here is plain and synchronous.
struct CookieStorage: Sendable {
    /// A stored cookie (normalised, with a creation time), its last-access-time (§5.3) and its
    /// place in the order of arrival.
    struct Entry: Sendable, Equatable {
        var cookie: Cookie
        var lastAccess: Date
        /// Orders cookies with equal creation times by arrival (§5.4 step 2): every cookie of
        /// one response is created at the same clock reading. A replacement keeps the old
        /// cookie's sequence, as it keeps its creation time (§5.3 step 11).
        var sequence: UInt64 = 0
        /// Changes whenever the cookie is stored (set, received, pulled, loaded), never when it is
        /// only read: ``CookieSync`` tells by it whether the app stored a cookie again since the
        /// web view's store last held it.
        var revision: UInt64 = 0
    }

    let configuration: CookieJar.Configuration
    private(set) var entries: [CookieKey: Entry] = [:]
    /// The sequence number of the next new cookie.
    private var nextSequence: UInt64 = 0
    /// The revision of the next cookie stored (``Entry/revision``); never reset.
    private var nextRevision: UInt64 = 1

    init(configuration: CookieJar.Configuration) {
        self.configuration = configuration
    }

    // MARK: - §5.3 from a Set-Cookie header

    /// Applies one `Set-Cookie` header received for `url` (§5.2 parsing, §5.3 storage).
    /// - Throws: the ``CookieError`` of the rule that made the user agent ignore the cookie.
    mutating func receive(_ header: String, from url: URL, source: CookieSource, now: Date) throws(CookieError) {
        guard let request = CookieRequest(url) else { throw .unsupportedURL(url.absoluteString) }
        guard let parsed = SetCookieParser.parse(header) else { throw .malformedSetCookie }

        // Step 3: Max-Age beats Expires; Max-Age <= 0 means "the earliest representable time".
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires =
                maxAge <= 0
                ? .distantPast
                : min(now.addingTimeInterval(TimeInterval(maxAge)), CookieDate.latest)
        } else {
            expires = parsed.expires
        }

        // Steps 4-6: Domain, public suffixes, host-only.
        var domain = request.host
        var isHostOnly = true
        if let attribute = parsed.domain, !attribute.isEmpty {
            if configuration.isPublicSuffix(attribute) {
                guard attribute == request.host else { throw .publicSuffix(domain: attribute) }
            } else {
                guard CookieRules.domainMatches(host: request.host, domain: attribute) else {
                    throw .domainMismatch(domain: attribute, host: request.host)
                }
                // An IP host can only match itself; its cookies stay host-only.
                isHostOnly = CookieRules.isIPAddress(request.host)
                domain = attribute
            }
        }

        // 6265bis: only secure channels may set Secure cookies.
        if parsed.isSecure && !request.isSecure { throw .secureFromInsecureOrigin(name: parsed.name) }

        let cookie = try CookieValuePolicy.normalized(
            Cookie(
                name: parsed.name,
                value: parsed.value,
                domain: domain,
                isHostOnly: isHostOnly,
                path: parsed.path ?? CookieRules.defaultPath(ofRequestPath: request.path),  // step 7
                expires: expires,
                isSecure: parsed.isSecure,
                isHTTPOnly: parsed.isHTTPOnly,
                sameSite: parsed.sameSite,
                isPartitioned: parsed.isPartitioned
            ))
        try store(cookie, source: source, requestIsSecure: request.isSecure, now: now)
    }

    // MARK: - §5.3 steps 10-12, §6.1

    /// Stores a normalised cookie, replacing one with the same name, domain and path.
    ///
    /// An expired cookie removes the stored one and is not kept (Max-Age=0 / past Expires
    /// deletes). The replacement keeps the old creation time (§5.3 step 11).
    /// - Parameters:
    ///   - requestIsSecure: whether the cookie came over a secure channel; `nil` when it comes
    ///     from the host app, where no channel applies (the Strict Secure check is skipped).
    ///   - isCopy: the cookie is copied from another store, not received: a new one gets no
    ///     last-access time (`distantPast`), so it is evicted before every cookie the jar already
    ///     held; a replacement is an access, as for any cookie set again.
    /// - Throws: ``CookieError`` for §5.3 steps 10 and 11, the 6265bis Secure and prefix rules,
    ///   and the §6.1 size limit.
    mutating func store(
        _ candidate: Cookie, source: CookieSource, requestIsSecure: Bool?, now: Date, isCopy: Bool = false
    ) throws(CookieError) {
        var cookie = candidate
        let size = cookie.name.utf8.count + cookie.value.utf8.count
        guard size <= configuration.maxCookieBytes else {
            throw .cookieTooLarge(name: cookie.name, bytes: size, limit: configuration.maxCookieBytes)
        }
        if cookie.isHTTPOnly && source == .nonHTTP { throw .httpOnlyFromNonHTTPSource(name: cookie.name) }
        try checkPrefix(cookie)
        if cookie.isPartitioned && !cookie.isSecure { throw .partitionedWithoutSecure(name: cookie.name) }
        purgeExpired(now: now)
        if requestIsSecure == false && !cookie.isSecure && overlapsSecureCookie(cookie) {
            throw .overwritesSecure(name: cookie.name)
        }
        let key = cookie.key
        var sequence: UInt64?
        var lastAccess = isCopy ? Date.distantPast : now
        if let old = entries[key] {
            if source == .nonHTTP && old.cookie.isHTTPOnly { throw .overwritesHTTPOnly(name: cookie.name) }
            cookie.creationTime = old.cookie.creationTime
            sequence = old.sequence
            lastAccess = now
            entries[key] = nil
        }
        guard !cookie.isExpired(at: now) else { return }
        if cookie.creationTime == nil { cookie.creationTime = now }
        entries[key] = Entry(
            cookie: cookie, lastAccess: lastAccess, sequence: sequence ?? takeSequence(), revision: takeRevision())
        enforceLimits(sparing: key, sparesKey: lastAccess != .distantPast)
    }

    private mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    private mutating func takeRevision() -> UInt64 {
        defer { nextRevision &+= 1 }
        return nextRevision
    }

    /// Removes each cookie of `revisions` whose revision is still the one given (it was not
    /// stored since).
    mutating func removeUnchanged(_ revisions: [CookieKey: UInt64]) {
        for (key, revision) in revisions where entries[key]?.revision == revision { entries[key] = nil }
    }

    /// 6265bis §4.1.3: `__Secure-` needs Secure; `__Host-` needs Secure, host-only, path `/`.
    /// Prefixes are matched case-insensitively, as the current draft does.
    private func checkPrefix(_ cookie: Cookie) throws(CookieError) {
        let name = cookie.name.lowercased()
        if name.hasPrefix("__secure-") && !cookie.isSecure { throw .prefixViolation(name: cookie.name) }
        if name.hasPrefix("__host-") && !(cookie.isSecure && cookie.isHostOnly && cookie.path == "/") {
            throw .prefixViolation(name: cookie.name)
        }
    }

    /// 6265bis "Strict Secure Cookies": a stored Secure cookie of the same name whose domain
    /// domain-matches the new one's (either way) and whose path path-matches the new path.
    private func overlapsSecureCookie(_ cookie: Cookie) -> Bool {
        entries.values.contains { entry in
            let old = entry.cookie
            return old.isSecure && old.name == cookie.name
                && (CookieRules.domainMatches(host: old.domain, domain: cookie.domain)
                    || CookieRules.domainMatches(host: cookie.domain, domain: old.domain))
                && CookieRules.pathMatches(requestPath: cookie.path, cookiePath: old.path)
        }
    }

    /// §6.1 limits: over the per-domain or total limit, remove cookies in ``evictsBefore(_:_:)``'s
    /// order. Expired cookies were removed first by the caller.
    /// - Parameters:
    ///   - key: the cookie just stored: only its domain is checked; `nil` checks every domain
    ///     (after loading a file).
    ///   - sparesKey: whether that cookie is never evicted for its own insertion. A cookie copied
    ///     in by a pull is not spared: it has no last access yet and competes with the others, so
    ///     it, not a cookie the jar held, goes when the jar is full.
    private mutating func enforceLimits(sparing key: CookieKey?, sparesKey: Bool = true) {
        let groups: [String: [CookieKey]]
        if let key {
            groups = [key.domain: entries.keys.filter { $0.domain == key.domain }]
        } else {
            groups = Dictionary(grouping: entries.keys, by: \.domain)
        }
        let spared = sparesKey ? key : nil
        for keys in groups.values {
            evictOldest(keys.count - configuration.maxCookiesPerDomain, from: keys, sparing: spared)
        }
        evictOldest(entries.count - configuration.maxCookies, from: Array(entries.keys), sparing: spared)
    }

    private mutating func evictOldest(_ excess: Int, from keys: [CookieKey], sparing: CookieKey?) {
        guard excess > 0 else { return }
        let victims = keys.filter { $0 != sparing }.sorted { lhs, rhs in
            guard let a = entries[lhs], let b = entries[rhs] else { return lhs < rhs }
            return Self.evictsBefore(a, b)
        }.prefix(excess)
        for key in victims { entries[key] = nil }
    }

    /// The eviction order: cookies a script could have set (not HttpOnly) before HttpOnly ones,
    /// which only HTTP sets, so that a page writing many cookies with `document.cookie` cannot
    /// push a server's session cookie out of the jar (the engine's store keeps more cookies per
    /// domain than the jar, so a pull brings such a flood in whole). Within each, RFC 6265 §5.3's
    /// order: the least recently accessed first, then the oldest created, then the first to arrive.
    static func evictsBefore(_ a: Entry, _ b: Entry) -> Bool {
        if a.cookie.isHTTPOnly != b.cookie.isHTTPOnly { return !a.cookie.isHTTPOnly }
        if a.lastAccess != b.lastAccess { return a.lastAccess < b.lastAccess }
        let aCreated = a.cookie.creationTime ?? .distantPast
        let bCreated = b.cookie.creationTime ?? .distantPast
        if aCreated != bCreated { return aCreated < bCreated }
        return a.sequence < b.sequence
    }

    // MARK: - Reading, removing, restoring

    /// §5.4 selection for `request`, in header order; updates last-access-time (§5.4 step 3)
    /// when `touch` is set.
    mutating func select(for request: CookieRequest, matchPath: Bool, httpAPI: Bool, now: Date, touch: Bool) -> [Cookie]
    {
        let visible = entries.values
            .filter { CookieRules.isVisible($0.cookie, to: request, matchPath: matchPath, httpAPI: httpAPI, now: now) }
        let selected = CookieRules.inHeaderOrder(visible, cookie: \.cookie, sequence: \.sequence).map(\.cookie)
        if touch {
            for cookie in selected { entries[cookie.key]?.lastAccess = now }
        }
        return selected
    }

    /// Every unexpired cookie, ordered by key (domain, path, name).
    func unexpired(now: Date) -> [Entry] {
        entries.values.filter { !$0.cookie.isExpired(at: now) }.sorted { $0.cookie.key < $1.cookie.key }
    }

    /// Every unexpired cookie in the order it was created: creation time, then arrival. The
    /// file keeps this order, so equal creation times stay in order across a save and load.
    func unexpiredInCreationOrder(now: Date) -> [Entry] {
        entries.values.filter { !$0.cookie.isExpired(at: now) }.sorted { lhs, rhs in
            let lhsCreated = lhs.cookie.creationTime ?? .distantPast
            let rhsCreated = rhs.cookie.creationTime ?? .distantPast
            if lhsCreated != rhsCreated { return lhsCreated < rhsCreated }
            return lhs.sequence < rhs.sequence
        }
    }

    /// Removes the cookie stored under `key`. - Returns: the removed cookie, if any.
    mutating func remove(_ key: CookieKey) -> Cookie? {
        entries.removeValue(forKey: key)?.cookie
    }

    /// Removes every cookie.
    mutating func removeAll() {
        entries.removeAll()
    }

    /// Removes every cookie expired at `now` (§5.3: expired cookies are evicted).
    mutating func purgeExpired(now: Date) {
        guard entries.values.contains(where: { $0.cookie.isExpired(at: now) }) else { return }
        entries = entries.filter { !$0.value.cookie.isExpired(at: now) }
    }

    /// Replaces the whole content with `restored` (already normalised, with creation times, in
    /// the order they arrived), dropping expired entries and applying the §6.1 limits.
    mutating func replaceAll(with restored: [Entry], now: Date) {
        entries = [:]
        nextSequence = 0
        for var entry in restored where !entry.cookie.isExpired(at: now) {
            entry.sequence = takeSequence()
            entry.revision = takeRevision()
            entries[entry.cookie.key] = entry
        }
        enforceLimits(sparing: nil)
    }
}
