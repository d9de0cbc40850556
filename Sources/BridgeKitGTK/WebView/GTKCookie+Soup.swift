#if WebKitGTK
import CWebKitGTK
import Foundation

extension GTKCookie {
    /// Reads a libsoup cookie (does not free it).
    init(soupCookie cookie: OpaquePointer) {
        var expires: Date?
        if let dateTime = soup_cookie_get_expires(cookie) {
            expires = Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(dateTime)))
        }
        let policy = soup_cookie_get_same_site_policy(cookie)
        let sameSite: String? =
            policy == SOUP_SAME_SITE_POLICY_LAX ? "Lax" : policy == SOUP_SAME_SITE_POLICY_STRICT ? "Strict" : nil
        self.init(
            name: gString(soup_cookie_get_name(cookie)) ?? "",
            value: gString(soup_cookie_get_value(cookie)) ?? "",
            domain: gString(soup_cookie_get_domain(cookie)) ?? "",
            path: gString(soup_cookie_get_path(cookie)) ?? "/",
            expires: expires,
            isSecure: soup_cookie_get_secure(cookie) != 0,
            isHTTPOnly: soup_cookie_get_http_only(cookie) != 0,
            sameSite: sameSite)
    }

    /// Checks the fields that would corrupt the cookie on its way through C and HTTP: a NUL, CR or LF
    /// anywhere; `;` in name or value (it would split the `Cookie` header, RFC 6265 section 4.1.1);
    /// `=` in the name; an empty domain; an unknown SameSite word. Other value rules (quotes,
    /// commas, spaces) are BridgeKit's cookie policy, not checked here.
    /// - Throws: ``GTKWebViewError/invalidArgument(_:)`` naming the field.
    func validateForSoup() throws(GTKWebViewError) {
        // Checked on Unicode scalars, not Characters: "\r\n" is one Character, and a combining mark
        // after ';' hides the ';' from a Character comparison.
        let fields = [("name", name), ("value", value), ("domain", domain), ("path", path)]
        for (field, text) in fields
        where text.unicodeScalars.contains(where: { $0 == "\0" || $0 == "\r" || $0 == "\n" }) {
            throw .invalidArgument("cookie \(field) contains NUL, CR or LF")
        }
        if name.unicodeScalars.contains(";") || value.unicodeScalars.contains(";") {
            throw .invalidArgument("cookie name or value contains ';'")
        }
        if name.unicodeScalars.contains("=") {
            throw .invalidArgument("cookie name contains '='")
        }
        if domain.isEmpty {
            throw .invalidArgument("cookie domain is empty")
        }
        if let sameSite, !["none", "lax", "strict"].contains(sameSite.lowercased()) {
            throw .invalidArgument("cookie sameSite must be None, Lax or Strict")
        }
    }

    /// True when `other` names the same cookie slot (name, domain and path; RFC 6265 section 5.3 step 11).
    func isSameSlot(as other: GTKCookie) -> Bool {
        name == other.name && domain == other.domain && (path.isEmpty ? "/" : path) == other.path
    }

    /// The first second `GDateTime` holds: 0001-01-01T00:00:00Z.
    static let earliestExpiry: Double = -62_135_596_800
    /// The last second `GDateTime` holds: 9999-12-31T23:59:59Z.
    static let latestExpiry: Double = 253_402_300_799

    /// A new libsoup cookie with these fields (the caller frees it with `soup_cookie_free`).
    /// An expiry outside GLib's date range (years 1 to 9999) is clamped to it: a server's
    /// "never expires" (`Expires=Fri, 31 Dec 9999 23:59:59 GMT`, or a huge `Max-Age`) is the
    /// latest date the jar stores too, and the last `GDateTime` holds (attack 14).
    /// - Throws: ``GTKWebViewError/invalidArgument(_:)`` from ``validateForSoup()`` or when the
    ///   expiry is not a number.
    func makeSoupCookie() throws(GTKWebViewError) -> OpaquePointer {
        try validateForSoup()
        guard let cookie = soup_cookie_new(name, value, domain, path.isEmpty ? "/" : path, -1) else {
            throw .invalidArgument("libsoup rejected the cookie")
        }
        if let expires {
            let seconds = min(max(expires.timeIntervalSince1970.rounded(.down), Self.earliestExpiry), Self.latestExpiry)
            guard seconds.isFinite, let dateTime = g_date_time_new_from_unix_utc(gint64(seconds))
            else {
                soup_cookie_free(cookie)
                throw .invalidArgument("cookie expiry is out of range")
            }
            soup_cookie_set_expires(cookie, dateTime)
            g_date_time_unref(dateTime)
        }
        soup_cookie_set_secure(cookie, isSecure ? 1 : 0)
        soup_cookie_set_http_only(cookie, isHTTPOnly ? 1 : 0)
        switch sameSite?.lowercased() {
        case "lax": soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_LAX)
        case "strict": soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_STRICT)
        default: soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_NONE)
        }
        return cookie
    }

    /// Reads and frees a `GList` of `SoupCookie *` (transfer full, as the cookie manager returns it).
    static func takingSoupCookieList(_ list: UnsafeMutablePointer<GList>?) -> [GTKCookie] {
        var cookies: [GTKCookie] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data {
                cookies.append(GTKCookie(soupCookie: OpaquePointer(data)))
            }
            node = current.pointee.next
        }
        g_list_free_full(list, freeSoupCookie)
        return cookies
    }
}

/// `GDestroyNotify` for list elements: `soup_cookie_free`.
private let freeSoupCookie: GDestroyNotify = { data in
    if let data {
        soup_cookie_free(OpaquePointer(data))
    }
}
#endif
