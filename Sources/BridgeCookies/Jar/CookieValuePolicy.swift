/// BridgeKit's rule for what a stored cookie's name, value and attributes may hold.
///
/// The jar stores names and values **as received** (RFC 6265 §5.2, §5.3): a value may hold a
/// space, a comma, a backslash, a double quote anywhere (`"zzz "`, `A"B`, `"zz`), non-ASCII
/// text (`春节`), and Werkzeug's or Python's quoted values with octal escapes
/// (`"a b\054c"`) byte for byte; nothing is re-encoded. It refuses only what no `Set-Cookie`
/// header can deliver after §5.2 parsing, so every stored cookie can be written back as one:
///
/// - **Names** must not be empty (§5.2 step 5), and must not contain `=` (§5.2 splits the
///   pair at the first `=`) — refused with ``CookieError/invalidCookieName(_:)``.
/// - **Names and values** must not contain `;` (§5.2 cuts the pair at the first `;`, field case
///   R31), a control character other than HTAB (draft-ietf-httpbis-rfc6265bis §5.6 step 2:
///   the user agent ignores such a cookie; a CR or LF would split a header), or leading or
///   trailing space or HTAB (§5.2 removes them) — refused with
///   ``CookieError/invalidCookieName(_:)`` or ``CookieError/invalidCookieValue(name:)``.
/// - **Paths** start with `/` and hold no control character and no `;` (§5.2.4 and the
///   `path-value` grammar of §4.1.1); non-ASCII characters in a path are percent-encoded as
///   UTF-8, the form a request path has on the wire, so that §5.1.4 path-match can match it.
/// - **Domains** are lowercased ASCII letters, digits, `-`, `_`, `.` (or an IPv6 literal), with
///   one leading `.` removed (§5.2.3). International domain names must be A-labels (`xn--…`),
///   as `URL.host` gives them.
///
/// Output is strict where it is written: ``DocumentCookieScript`` leaves out and reports what
/// `document.cookie` cannot express, and percent-encoding of non-ASCII octets in the `Cookie`
/// header and the script is the explicit option ``CookieOutputEncoding/percentEncodedNonASCII``.
public enum CookieValuePolicy {
    /// Checks a cookie value (RFC 6265 §5.2) and returns it unchanged.
    ///
    /// - Parameters:
    ///   - value: the cookie value.
    ///   - name: the cookie's name, for the error.
    /// - Throws: ``CookieError/invalidCookieValue(name:)`` when the value holds `;`, a control
    ///   other than HTAB, or leading or trailing space or HTAB.
    public static func normalizedValue(_ value: String, cookieName name: String) throws(CookieError) -> String {
        guard isStorable(value, allowingEquals: true) else { throw .invalidCookieValue(name: name) }
        return value
    }

    /// Checks a cookie name (RFC 6265 §5.2) and returns it unchanged.
    /// - Throws: ``CookieError/invalidCookieName(_:)`` when the name is empty or holds `=`,
    ///   `;`, a control other than HTAB, or leading or trailing space or HTAB.
    public static func normalizedName(_ name: String) throws(CookieError) -> String {
        guard !name.isEmpty, isStorable(name, allowingEquals: false) else { throw .invalidCookieName(name) }
        return name
    }

    /// Returns `path` with non-ASCII characters percent-encoded (RFC 6265 §5.2.4, §5.1.4).
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` (`"path"`) when the
    ///   path does not start with `/`, holds a control character or `;`, or is longer than
    ///   1024 bytes once encoded (the longest attribute value a `Set-Cookie` header can set,
    ///   draft-ietf-httpbis-rfc6265bis §5.6).
    public static func normalizedPath(_ path: String, cookieName name: String) throws(CookieError) -> String {
        guard path.hasPrefix("/"),
            !path.unicodeScalars.contains(where: { $0 == ";" || isControl($0) })
        else {
            throw .invalidCookieAttribute(name: name, attribute: "path")
        }
        let encoded = percentEncodingNonASCII(path)
        guard encoded.utf8.count <= SetCookieParser.maxAttributeValueBytes else {
            throw .invalidCookieAttribute(name: name, attribute: "path")
        }
        return encoded
    }

    /// Returns the canonical domain: lowercased, one leading `.` removed (RFC 6265 §5.2.3).
    ///
    /// - Returns: the domain and whether it had a leading dot (which marks a domain cookie).
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` (`"domain"`) when the
    ///   result is empty, longer than 1024 bytes (draft-ietf-httpbis-rfc6265bis §5.6), has an
    ///   empty label, or holds anything but ASCII letters, digits, `-`, `_`, `.` and `:` (IPv6).
    public static func normalizedDomain(_ domain: String, cookieName name: String) throws(CookieError) -> (
        domain: String, hadLeadingDot: Bool
    ) {
        var text = Substring(domain.lowercased())
        let hadLeadingDot = text.hasPrefix(".")
        if hadLeadingDot { text = text.dropFirst() }
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        let allowed = text.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
                || byte == 0x2E || byte == 0x3A
        }
        guard allowed, !text.isEmpty, text.utf8.count <= SetCookieParser.maxAttributeValueBytes, !text.hasPrefix("."),
            !text.hasSuffix("."), !text.contains("..")
        else {
            throw .invalidCookieAttribute(name: name, attribute: "domain")
        }
        return (String(text), hadLeadingDot)
    }

    /// Returns `text` with every non-ASCII character percent-encoded as UTF-8 (upper-case hex);
    /// ASCII, `%` included, is left as it is, so applying it twice changes nothing.
    ///
    /// Used for paths, and for names and values only when the app asks for
    /// ``CookieOutputEncoding/percentEncodedNonASCII`` (a server that needs ASCII headers).
    public static func percentEncodingNonASCII(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            if byte < 0x80 {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 6265 §4.1.1 cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E — what a
    /// server SHOULD send. The jar does not require it of what it receives.
    static func isCookieOctet(_ scalar: UInt32) -> Bool {
        scalar == 0x21 || (0x23...0x2B).contains(scalar) || (0x2D...0x3A).contains(scalar)
            || (0x3C...0x5B).contains(scalar) || (0x5D...0x7E).contains(scalar)
    }

    /// A control character other than HTAB: %x00-08 / %x0A-1F / %x7F (6265bis §5.6 step 2).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// Space or HTAB, the WSP §5.2 trims.
    static func isWSP(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// Whether `text` is a name or value §5.2 parsing could have produced.
    private static func isStorable(_ text: String, allowingEquals: Bool) -> Bool {
        let scalars = text.unicodeScalars
        if let first = scalars.first, isWSP(first) { return false }
        if let last = scalars.last, isWSP(last) { return false }
        return !scalars.contains { $0 == ";" || isControl($0) || (!allowingEquals && $0 == "=") }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Returns `cookie` with every field checked by the rules above (names and values
    /// unchanged, the path encoded, the domain canonical).
    ///
    /// A leading dot on the domain makes the cookie a domain cookie; an IP-address domain is
    /// always host-only (RFC 6265 §5.1.3: IP hosts match only themselves).
    /// - Throws: the ``CookieError`` of the first field that breaks the policy.
    static func normalized(_ cookie: Cookie) throws(CookieError) -> Cookie {
        var result = cookie
        result.name = try normalizedName(cookie.name)
        result.value = try normalizedValue(cookie.value, cookieName: cookie.name)
        result.path = try normalizedPath(cookie.path, cookieName: cookie.name)
        let (domain, hadLeadingDot) = try normalizedDomain(cookie.domain, cookieName: cookie.name)
        result.domain = domain
        if hadLeadingDot { result.isHostOnly = false }
        if CookieRules.isIPAddress(domain) { result.isHostOnly = true }
        return result
    }
}
