import Foundation

/// The request a cookie decision is about: the parts of a URL RFC 6265 looks at.
struct CookieRequest: Sendable {
    /// The canonical host (§5.1.2): lowercased, IPv6 without brackets.
    let host: String
    /// The URI path, percent-encoded as sent; `/` when empty.
    let path: String
    /// Whether the scheme is a secure channel (`https`, `wss`).
    let isSecure: Bool
    /// Whether the scheme is `http` or `https` (a document that may use `document.cookie`).
    let isHTTP: Bool

    /// Reads `url`. - Returns: `nil` when cookies do not apply to it (no host, or a scheme other
    /// than `http`, `https`, `ws`, `wss`: the HTML spec's cookie-averse documents).
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme),
            let host = url.host(percentEncoded: false).map(CookieRules.canonicalHost), !host.isEmpty
        else {
            return nil
        }
        self.host = host
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
        self.isSecure = scheme == "https" || scheme == "wss"
        self.isHTTP = scheme == "http" || scheme == "https"
    }

    private init(host: String, path: String, isSecure: Bool, isHTTP: Bool) {
        self.host = host
        self.path = path
        self.isSecure = isSecure
        self.isHTTP = isHTTP
    }

    /// The same request over a secure channel (to find the Secure cookies an http page's host
    /// holds).
    var asSecure: CookieRequest { CookieRequest(host: host, path: path, isSecure: true, isHTTP: isHTTP) }
}

/// The matching rules of RFC 6265 §5.1.2–§5.1.4 and the selection of §5.4, as pure functions.
enum CookieRules {
    /// §5.1.2 canonical host: lowercased, without IPv6 brackets, an IP address in the one form
    /// WebKit's URL parser writes it (``IPAddressHost``: `127.1` is `127.0.0.1`, `0:0::1` is
    /// `::1`), so the jar and the web view agree on which host a cookie belongs to. Foundation
    /// already turns international names into A-labels (`bücher.de` → `xn--bcher-kva.de`) but
    /// leaves IP addresses as written.
    static func canonicalHost(_ host: String) -> String {
        var host = Substring(host.lowercased())
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return IPAddressHost.canonical(host) ?? String(host)
    }

    /// Whether `host` is an IP address literal: IPv6 (contains `:`) or a name whose last label
    /// is numeric (IPv4 and the WHATWG "ends in a number" forms). IP hosts never match a domain
    /// by suffix (§5.1.3) and never hold domain cookies.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        guard let last = host.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else {
            return false
        }
        if last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        let lowered = last.lowercased()
        return lowered.hasPrefix("0x") && lowered.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// §5.1.3 domain-match: `host` equals `domain`, or `domain` is a suffix of `host` preceded by
    /// a `.` and `host` is a name, not an IP address. Both are canonical (lowercased).
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard host.utf8.count > domain.utf8.count, host.hasSuffix(domain), !isIPAddress(host) else { return false }
        let dotIndex = host.utf8.index(host.utf8.endIndex, offsetBy: -(domain.utf8.count + 1))
        return host.utf8[dotIndex] == UInt8(ascii: ".")
    }

    /// §5.1.4 path-match: identical; or `cookiePath` is a prefix of `requestPath` and ends with
    /// `/`; or is a prefix and the next character of `requestPath` is `/`. Case-sensitive.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        let request = requestPath.utf8
        let cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// §5.1.4 default-path: the request path up to, not including, its last `/`; `/` when the
    /// path is empty, does not start with `/`, or has only one `/`.
    static func defaultPath(ofRequestPath path: String) -> String {
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// Whether `cookie` is sent with, or visible to, `request` (§5.4 step 1).
    ///
    /// - Parameters:
    ///   - matchPath: apply §5.1.4 path-match (`false` for `document.cookie` scripts, which may
    ///     set a cookie for any path of the page's host).
    ///   - httpAPI: `false` for script (non-HTTP) access, which never sees HttpOnly cookies.
    static func isVisible(_ cookie: Cookie, to request: CookieRequest, matchPath: Bool, httpAPI: Bool, now: Date)
        -> Bool
    {
        guard !cookie.isExpired(at: now) else { return false }
        let domainOK =
            cookie.isHostOnly
            ? request.host == cookie.domain
            : domainMatches(host: request.host, domain: cookie.domain)
        guard domainOK else { return false }
        if matchPath && !pathMatches(requestPath: request.path, cookiePath: cookie.path) { return false }
        if cookie.isSecure && !request.isSecure { return false }
        if cookie.isHTTPOnly && !httpAPI { return false }
        return true
    }

    /// §5.4 step 2 order: longer paths first, then earlier creation time, then earlier arrival
    /// (`sequence`: cookies of one response share a creation time).
    static func inHeaderOrder<Item>(_ items: [Item], cookie: (Item) -> Cookie, sequence: (Item) -> UInt64) -> [Item] {
        items.sorted { lhsItem, rhsItem in
            let lhs = cookie(lhsItem)
            let rhs = cookie(rhsItem)
            let lhsPath = lhs.path.utf8.count
            let rhsPath = rhs.path.utf8.count
            if lhsPath != rhsPath { return lhsPath > rhsPath }
            let lhsCreated = lhs.creationTime ?? .distantFuture
            let rhsCreated = rhs.creationTime ?? .distantFuture
            if lhsCreated != rhsCreated { return lhsCreated < rhsCreated }
            return sequence(lhsItem) < sequence(rhsItem)
        }
    }

    /// ``inHeaderOrder(_:cookie:sequence:)`` for cookies given as a list: equal creation times
    /// keep the list's order.
    static func inHeaderOrder(_ cookies: [Cookie]) -> [Cookie] {
        inHeaderOrder(Array(cookies.enumerated()), cookie: \.element, sequence: { UInt64($0.offset) }).map(\.element)
    }

    /// §5.4 step 4: `name=value` pairs joined by `"; "` (field case R39), no trailing
    /// separator; names and values as stored unless `encoding` says otherwise.
    static func cookieString(_ cookies: [Cookie], encoding: CookieOutputEncoding = .asStored) -> String {
        cookies.map { encoding.apply($0.name) + "=" + encoding.apply($0.value) }.joined(separator: "; ")
    }
}
