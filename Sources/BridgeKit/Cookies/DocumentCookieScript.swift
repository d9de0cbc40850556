public import Foundation

/// Builds the `document.cookie` script that gives a page its cookies, for systems where the
/// web view's cookie store cannot be filled before the first load (run it as a
/// document-start user script).
///
/// One assignment per cookie, each a single cookie with its own attributes:
/// `name=value; path=/p; domain=d; expires=Wed, 01 Jan 2031 00:00:00 GMT; secure; samesite=Lax`
/// — `domain` only for domain cookies (a host-only cookie must stay host-only), `expires` only
/// for persistent cookies (IMF-fixdate, English names, GMT; field case R42), `secure` and
/// `samesite` when set. The script carries the cookies the page's origin may set for itself
/// (host-only cookies of exactly the page host, domain cookies the host domain-matches), of
/// every path; never an HttpOnly cookie (a script must not see it; field case R33), and Secure
/// cookies only for `https` pages (field case R41). Pages whose URL is not `http`/`https`
/// cannot use cookies and get an empty list.
///
/// The strings reach the page only through ``PageScript/build(calling:encoding:)`` with
/// ``PageFunction/assignCookies``: they are JSON data in argument position, never script
/// text, so no name or value can break out of the script (field case R29). Values are
/// checked by ``CookieValuePolicy`` first, so none can inject an attribute (field case R31).
public enum DocumentCookieScript {
    /// The strings the script assigns to `document.cookie`, in `Cookie` header order (longer
    /// paths first, then earlier creation).
    ///
    /// - Parameters:
    ///   - cookies: candidate cookies, for example from another store. Every one of them is
    ///     checked by ``CookieValuePolicy`` (non-ASCII percent-encoded), included or not.
    ///   - pageURL: the URL of the page the script will run in.
    ///   - now: the current time; expired cookies are left out.
    /// - Throws: ``CookieError/invalidCookieName(_:)``, ``CookieError/invalidCookieValue(name:)``
    ///   or ``CookieError/invalidCookieAttribute(name:attribute:)`` for the first cookie the
    ///   policy refuses; then no script is produced at all.
    public static func assignments(for cookies: [Cookie], pageURL: URL, now: Date) throws(CookieError) -> [String] {
        var normalized: [Cookie] = []
        normalized.reserveCapacity(cookies.count)
        for cookie in cookies {
            normalized.append(try CookieValuePolicy.normalized(cookie))
        }
        guard let request = CookieRequest(pageURL), request.isHTTP else { return [] }
        return CookieRules.inHeaderOrder(normalized.filter {
            CookieRules.isVisible($0, to: request, matchPath: false, httpAPI: false, now: now)
        }).map(assignment)
    }

    /// The script for ``assignments(for:pageURL:now:)``.
    /// - Throws: the ``CookieError`` of ``assignments(for:pageURL:now:)``; `EncodingError` is
    ///   declared by ``PageScript`` but cannot occur for strings.
    public static func script(for cookies: [Cookie], pageURL: URL, now: Date) throws -> String {
        try PageScript.build(calling: .assignCookies, encoding: assignments(for: cookies, pageURL: pageURL, now: now))
    }

    /// One assignment for a cookie already normalised by ``CookieValuePolicy``.
    static func assignment(_ cookie: Cookie) -> String {
        var text = cookie.name + "=" + cookie.value + "; path=" + cookie.path
        if !cookie.isHostOnly { text += "; domain=" + cookie.domain }
        if let expires = cookie.expires { text += "; expires=" + CookieDate.imfFixdate(expires) }
        if cookie.isSecure { text += "; secure" }
        if let sameSite = cookie.sameSite { text += "; samesite=" + sameSite.rawValue }
        return text
    }
}

extension CookieJar {
    /// The `document.cookie` assignments for a page at `pageURL`, chosen and written as
    /// ``DocumentCookieScript`` describes. Does not update last-access times.
    public func documentCookieAssignments(for pageURL: URL) -> [String] {
        guard let request = CookieRequest(pageURL), request.isHTTP else { return [] }
        let now = self.now
        return storage.withLock {
            $0.select(for: request, matchPath: false, httpAPI: false, now: now, touch: false)
        }.map(DocumentCookieScript.assignment)
    }

    /// The `document.cookie` script for a page at `pageURL` (see ``DocumentCookieScript``),
    /// built by ``PageScript``. Evaluate it, or install it as a document-start user script.
    /// - Throws: `EncodingError` is declared by ``PageScript`` but cannot occur for strings;
    ///   the jar's cookies already satisfy ``CookieValuePolicy``.
    public func documentCookieScript(for pageURL: URL) throws -> String {
        try PageScript.build(calling: .assignCookies, encoding: documentCookieAssignments(for: pageURL))
    }
}
