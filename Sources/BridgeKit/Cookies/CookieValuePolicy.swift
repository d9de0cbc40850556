/// BridgeKit's one rule for the characters of cookie names, values and attributes.
///
/// The same rule guards every way a cookie leaves the jar (the `Cookie` header, the
/// `document.cookie` script, the web view's store, the file), so all of them agree
/// (field case R43). The jar applies it when a cookie enters, so what it stores is already
/// safe to send; the script builder applies it again to cookies it is given directly.
///
/// - **Non-ASCII** characters in names, values and paths are percent-encoded as UTF-8
///   (`Zürich` → `Z%C3%BCrich`, R43). The encoding is one-way: a `%` already present is a valid
///   cookie-octet and stays as it is, so applying the policy twice changes nothing.
/// - **Values** may otherwise hold only RFC 6265 §4.1.1 cookie-octets; one pair of `"` may
///   wrap the whole value. A control character, space, `"`, `,`, `;` or `\` is refused with
///   ``CookieError/invalidCookieValue(name:)`` — never encoded, because a `;` pasted into
///   `document.cookie` would become an attribute (R31) and guessing an encoding would change
///   what the server reads.
/// - **Names** follow the value rule without quotes and without `=`; empty names are refused
///   (``CookieError/invalidCookieName(_:)``).
/// - **Paths** start with `/` and hold visible ASCII except `;`; **domains** are lowercased
///   ASCII letters, digits, `-`, `_`, `.` (or an IPv6 literal), with one leading `.` removed.
///   Anything else is refused with ``CookieError/invalidCookieAttribute(name:attribute:)``.
///   International domain names must be given as A-labels (`xn--…`), as `URL.host` gives them.
public enum CookieValuePolicy {
    /// Returns `value` with non-ASCII characters percent-encoded (UTF-8, upper-case hex).
    ///
    /// - Parameters:
    ///   - value: the cookie value.
    ///   - name: the cookie's name, for the error.
    /// - Throws: ``CookieError/invalidCookieValue(name:)`` when the value holds a control,
    ///   space, `"` (other than one pair wrapping it), `,`, `;` or `\`.
    public static func normalizedValue(_ value: String, cookieName name: String) throws(CookieError) -> String {
        var scalars = Substring(value).unicodeScalars[...]
        var quoted = false
        if scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" {
            quoted = true
            scalars = scalars.dropFirst().dropLast()
        }
        guard let body = encode(scalars, allowing: isCookieOctet) else { throw .invalidCookieValue(name: name) }
        return quoted ? "\"" + body + "\"" : body
    }

    /// Returns `name` with non-ASCII characters percent-encoded.
    /// - Throws: ``CookieError/invalidCookieName(_:)`` when the name is empty or holds a control,
    ///   space, `"`, `,`, `;`, `\` or `=`.
    public static func normalizedName(_ name: String) throws(CookieError) -> String {
        guard !name.isEmpty, let encoded = encode(name.unicodeScalars[...], allowing: { $0 != 0x3D && isCookieOctet($0) })
        else { throw .invalidCookieName(name) }
        return encoded
    }

    /// Returns `path` with non-ASCII characters percent-encoded.
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` (`"path"`) when the
    ///   path does not start with `/` or holds a control, space or `;`.
    public static func normalizedPath(_ path: String, cookieName name: String) throws(CookieError) -> String {
        guard path.hasPrefix("/"), let encoded = encode(path.unicodeScalars[...], allowing: { $0 != 0x3B && (0x21...0x7E).contains($0) })
        else { throw .invalidCookieAttribute(name: name, attribute: "path") }
        return encoded
    }

    /// Returns the canonical domain: lowercased, one leading `.` removed.
    ///
    /// - Returns: the domain and whether it had a leading dot (which marks a domain cookie).
    /// - Throws: ``CookieError/invalidCookieAttribute(name:attribute:)`` (`"domain"`) when the
    ///   result is empty, has an empty label, or holds anything but ASCII letters, digits,
    ///   `-`, `_`, `.` and `:` (IPv6).
    public static func normalizedDomain(_ domain: String, cookieName name: String) throws(CookieError) -> (domain: String, hadLeadingDot: Bool) {
        var text = Substring(domain.lowercased())
        let hadLeadingDot = text.hasPrefix(".")
        if hadLeadingDot { text = text.dropFirst() }
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        let allowed = text.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
                || byte == 0x2E || byte == 0x3A
        }
        guard allowed, !text.isEmpty, !text.hasPrefix("."), !text.hasSuffix("."), !text.contains("..") else {
            throw .invalidCookieAttribute(name: name, attribute: "domain")
        }
        return (String(text), hadLeadingDot)
    }

    /// RFC 6265 §4.1.1 cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E.
    static func isCookieOctet(_ scalar: UInt32) -> Bool {
        scalar == 0x21 || (0x23...0x2B).contains(scalar) || (0x2D...0x3A).contains(scalar)
            || (0x3C...0x5B).contains(scalar) || (0x5D...0x7E).contains(scalar)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Copies `scalars`, percent-encoding non-ASCII ones as UTF-8.
    /// - Returns: `nil` when an ASCII scalar fails `allowing`.
    private static func encode(_ scalars: Substring.UnicodeScalarView.SubSequence, allowing: (UInt32) -> Bool) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.isASCII {
                guard allowing(scalar.value) else { return nil }
                out.append(UInt8(scalar.value))
            } else {
                for byte in String(scalar).utf8 {
                    out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns `cookie` with every field normalised by the rules above.
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
