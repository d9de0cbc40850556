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
/// every path; Secure cookies only for `https` pages (field case R41). Pages whose URL is not
/// `http`/`https` cannot use cookies and get nothing.
///
/// Strict where it writes: names and values are written as stored (or percent-encoded, when
/// the app chose ``CookieOutputEncoding/percentEncodedNonASCII``, as the header is), and a
/// cookie `document.cookie` cannot express — HttpOnly (R33), a `;` in its name, value or path
/// (R31), a control character, outer whitespace, a `__Host-`/`__Secure-` cookie the page
/// cannot set — is left out and reported in ``DocumentCookiePlan/omitted``, never truncated.
/// The strings reach the page only through ``PageScript`` with ``PageFunction/assignCookiesOnPage``:
/// they are JSON data in argument position, never script text (field case R29).
public enum DocumentCookieScript {
    /// The assignments and omissions of the script for a page at `pageURL`.
    ///
    /// - Parameters:
    ///   - cookies: candidate cookies, for example from another store; any text is accepted.
    ///     Equal creation times keep this order.
    ///   - pageURL: the URL of the page the script will run in.
    ///   - now: the current time; expired cookies are left out (not reported).
    ///   - encoding: how names and values are written; use the jar's
    ///     ``CookieJar/Configuration/outputEncoding`` so the script agrees with the header.
    public static func plan(
        for cookies: [Cookie], pageURL: URL, now: Date,
        encoding: CookieOutputEncoding = .asStored
    ) -> DocumentCookiePlan {
        guard let request = CookieRequest(pageURL), request.isHTTP else {
            return DocumentCookiePlan(assignments: [], omitted: [], pageScheme: "", pageHost: "")
        }
        var candidates: [Cookie] = []
        var omitted: [DocumentCookieOmission] = []
        for cookie in cookies {
            guard
                let (domain, hadLeadingDot) = try? CookieValuePolicy.normalizedDomain(
                    cookie.domain, cookieName: cookie.name)
            else {
                omitted.append(DocumentCookieOmission(cookie: cookie.key, reason: .invalidAttribute))
                continue
            }
            var candidate = cookie
            candidate.domain = domain
            if hadLeadingDot { candidate.isHostOnly = false }
            if CookieRules.isIPAddress(domain) { candidate.isHostOnly = true }
            candidates.append(candidate)
        }
        return plan(
            forVisible: CookieRules.inHeaderOrder(candidates), request: request, now: now,
            encoding: encoding, omitted: omitted)
    }

    /// The strings of ``plan(for:pageURL:now:encoding:)``, without the report.
    public static func assignments(
        for cookies: [Cookie], pageURL: URL, now: Date,
        encoding: CookieOutputEncoding = .asStored
    ) -> [String] {
        plan(for: cookies, pageURL: pageURL, now: now, encoding: encoding).assignments
    }

    /// The script of ``plan(for:pageURL:now:encoding:)``; what it leaves out is reported only
    /// by the plan.
    /// - Throws: `EncodingError` is declared by ``PageScript`` but cannot occur for strings.
    public static func script(
        for cookies: [Cookie], pageURL: URL, now: Date,
        encoding: CookieOutputEncoding = .asStored
    ) throws -> String {
        try plan(for: cookies, pageURL: pageURL, now: now, encoding: encoding).script()
    }

    /// Splits cookies in header order into assignments and omissions for `request`.
    static func plan(
        forVisible ordered: [Cookie], request: CookieRequest, now: Date,
        encoding: CookieOutputEncoding, omitted: [DocumentCookieOmission]
    ) -> DocumentCookiePlan {
        var plan = DocumentCookiePlan(
            assignments: [], omitted: omitted, pageScheme: request.isSecure ? "https" : "http", pageHost: request.host)
        let secureRequest = request.asSecure
        for cookie in ordered {
            if !CookieRules.isVisible(cookie, to: request, matchPath: false, httpAPI: true, now: now) {
                // A prefixed cookie this host holds but an http page cannot set is reported;
                // other Secure cookies are simply not for an http page (R41).
                if hasPrefix(cookie.name),
                    CookieRules.isVisible(cookie, to: secureRequest, matchPath: false, httpAPI: true, now: now)
                {
                    plan.omitted.append(DocumentCookieOmission(cookie: cookie.key, reason: .prefixNotSettable))
                }
                continue
            }
            if let reason = omissionReason(cookie) {
                plan.omitted.append(DocumentCookieOmission(cookie: cookie.key, reason: reason))
            } else {
                plan.assignments.append(assignment(cookie, encoding: encoding))
            }
        }
        return plan
    }

    /// Why a script cannot express `cookie` (already visible to the page), or `nil`.
    static func omissionReason(_ cookie: Cookie) -> DocumentCookieOmission.Reason? {
        if cookie.isHTTPOnly { return .httpOnly }
        if cookie.name.isEmpty || cookie.name.unicodeScalars.contains("=") { return .invalidName }
        let fields = [cookie.name, cookie.value, cookie.path]
        if fields.contains(where: { $0.unicodeScalars.contains(";") }) { return .semicolon }
        if fields.contains(where: { $0.unicodeScalars.contains(where: CookieValuePolicy.isControl) }) {
            return .controlCharacter
        }
        for text in [cookie.name, cookie.value] {
            if let first = text.unicodeScalars.first, CookieValuePolicy.isWSP(first) { return .outerWhitespace }
            if let last = text.unicodeScalars.last, CookieValuePolicy.isWSP(last) { return .outerWhitespace }
        }
        if !cookie.path.hasPrefix("/") { return .invalidAttribute }
        let name = cookie.name.lowercased()
        if name.hasPrefix("__secure-") && !cookie.isSecure { return .prefixNotSettable }
        if name.hasPrefix("__host-") && !(cookie.isSecure && cookie.isHostOnly && cookie.path == "/") {
            return .prefixNotSettable
        }
        return nil
    }

    private static func hasPrefix(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.hasPrefix("__secure-") || lowered.hasPrefix("__host-")
    }

    /// One assignment for a cookie a script can express.
    static func assignment(_ cookie: Cookie, encoding: CookieOutputEncoding) -> String {
        var text = encoding.apply(cookie.name) + "=" + encoding.apply(cookie.value) + "; path=" + cookie.path
        if !cookie.isHostOnly { text += "; domain=" + cookie.domain }
        if let expires = cookie.expires { text += "; expires=" + CookieDate.imfFixdate(expires) }
        if cookie.isSecure { text += "; secure" }
        if let sameSite = cookie.sameSite { text += "; samesite=" + sameSite.rawValue }
        if cookie.isPartitioned { text += "; partitioned" }
        return text
    }
}

extension CookieJar {
    /// The `document.cookie` plan for a page at `pageURL`, chosen and written as
    /// ``DocumentCookieScript`` describes, in the jar's ``Configuration/outputEncoding``.
    /// Does not update last-access times.
    public func documentCookiePlan(for pageURL: URL) -> DocumentCookiePlan {
        guard let request = CookieRequest(pageURL), request.isHTTP else {
            return DocumentCookiePlan(assignments: [], omitted: [], pageScheme: "", pageHost: "")
        }
        let now = self.now
        let secureRequest = request.asSecure
        let ordered = storage.withLock {
            $0.select(for: secureRequest, matchPath: false, httpAPI: true, now: now, touch: false)
        }
        return DocumentCookieScript.plan(
            forVisible: ordered, request: request, now: now,
            encoding: configuration.outputEncoding, omitted: [])
    }

    /// The assignments of ``documentCookiePlan(for:)``, without the report.
    public func documentCookieAssignments(for pageURL: URL) -> [String] {
        documentCookiePlan(for: pageURL).assignments
    }

    /// The script of ``documentCookiePlan(for:)``. Evaluate it, or install it as a
    /// document-start user script; use the plan to learn which cookies it left out.
    /// - Throws: `EncodingError` is declared by ``PageScript`` but cannot occur for strings.
    public func documentCookieScript(for pageURL: URL) throws -> String {
        try documentCookiePlan(for: pageURL).script()
    }
}
