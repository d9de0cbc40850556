import Foundation

/// A `Set-Cookie` header after RFC 6265 §5.2 parsing, before the §5.3 storage rules.
struct ParsedSetCookie: Sendable, Equatable {
    var name: String
    var value: String
    /// The last `Expires` that parsed as a cookie date (§5.2.1).
    var expires: Date?
    /// The last valid `Max-Age`, in seconds; may be zero or negative (§5.2.2).
    var maxAge: Int64?
    /// The last `Domain` with a non-empty value, lowercased, one leading `.` removed (§5.2.3):
    /// empty for `Domain=.`, which §5.3 step 6 makes host-only.
    var domain: String?
    /// The last `Path`; `nil` when absent or when the last one was empty or did not start with
    /// `/` (both mean default-path, §5.2.4).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    /// The last `SameSite`; an unknown value resets it to absent (6265bis §5.6.7).
    var sameSite: CookieSameSite?
    /// `Partitioned` was present (CHIPS, draft-cutler-httpbis-partitioned-cookies); its value
    /// is ignored, like Secure's.
    var isPartitioned = false
}

/// The RFC 6265 §5.2 `Set-Cookie` parser, and the splitter for comma-folded header values.
enum SetCookieParser {
    /// The longest attribute value taken, in UTF-8 bytes; a longer one is ignored as if it were
    /// not there (draft-ietf-httpbis-rfc6265bis §5.6, as browsers do), so a header cannot make
    /// the jar hold a path or domain of any length.
    static let maxAttributeValueBytes = 1024

    /// Parses one `Set-Cookie` header value (§5.2).
    ///
    /// The name-value pair is the text before the first `;`, split at its first `=`; name and
    /// value lose leading and trailing WSP and are otherwise kept as they are (quotes,
    /// backslashes, spaces, commas and non-ASCII included). Works on Unicode scalars, so a `;`
    /// or `=` followed by a combining mark still separates.
    /// - Returns: `nil` when the header must be ignored: no `=` in the name-value pair, or an
    ///   empty name after trimming (steps 2 and 5). Unknown attributes are ignored, and so is
    ///   an attribute whose value is longer than ``maxAttributeValueBytes`` (6265bis §5.6); the
    ///   last occurrence of an attribute wins; attribute names are case-insensitive.
    static func parse(_ header: String) -> ParsedSetCookie? {
        var parts = header.unicodeScalars.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimWhitespace(pair[..<equals])
        guard !name.isEmpty else { return nil }
        var result = ParsedSetCookie(
            name: String(name), value: String(trimWhitespace(pair[pair.index(after: equals)...])))
        for av in parts {
            let nameEnd = av.firstIndex(of: "=") ?? av.endIndex
            let attribute = String(trimWhitespace(av[..<nameEnd])).lowercased()
            let value = nameEnd == av.endIndex ? "" : Substring(trimWhitespace(av[av.index(after: nameEnd)...]))
            guard value.utf8.count <= maxAttributeValueBytes else { continue }
            apply(attribute: attribute, value: value, to: &result)
        }
        return result
    }

    /// Removes leading and trailing WSP (space and horizontal tab, §5.2) from scalars.
    private static func trimWhitespace(_ scalars: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        let isWSP: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = scalars.firstIndex(where: { !isWSP($0) }), let end = scalars.lastIndex(where: { !isWSP($0) })
        else {
            return scalars[scalars.endIndex...]
        }
        return scalars[start...end]
    }

    private static func apply(attribute: String, value: Substring, to result: inout ParsedSetCookie) {
        switch attribute {
        case "expires":
            if let date = CookieDate.parse(String(value)) { result.expires = date }
        case "max-age":
            if let seconds = parseMaxAge(value) { result.maxAge = seconds }
        case "domain":
            // An empty value is ignored; `.` leaves an empty domain, which still counts as the
            // last Domain attribute (§5.3 step 4) and makes the cookie host-only (step 6).
            guard !value.isEmpty else { break }
            result.domain = (value.hasPrefix(".") ? value.dropFirst() : value).lowercased()
        case "path":
            result.path = value.hasPrefix("/") ? String(value) : nil
        case "secure":
            result.isSecure = true
        case "httponly":
            result.isHTTPOnly = true
        case "samesite":
            result.sameSite = CookieSameSite(attributeValue: value)
        case "partitioned":
            result.isPartitioned = true
        default:
            break
        }
    }

    /// §5.2.2: the first character is a DIGIT or `-`, the rest DIGITs. Saturates at ±Int64.max.
    private static func parseMaxAge(_ text: Substring) -> Int64? {
        var digits = text.utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var magnitude: Int64 = 0
        for digit in digits {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
            if overflow1 || overflow2 {
                magnitude = .max
                break
            }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// Removes leading and trailing WSP (space and horizontal tab, §5.2).
    static func trimWhitespace(_ text: Substring) -> Substring {
        let isWSP: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !isWSP($0) }), let end = text.lastIndex(where: { !isWSP($0) }) else {
            return text[text.endIndex...]
        }
        return text[start...end]
    }

    /// The attributes after which a comma may end a folded cookie: those of RFC 6265 §5.2 and
    /// the ones browsers add (6265bis `SameSite`, `Partitioned`, Chromium's `Priority`).
    private static let knownAttributes: Set<String> = [
        "expires", "max-age", "domain", "path", "secure", "httponly", "samesite", "partitioned", "priority",
    ]

    /// Splits a header value in which several `Set-Cookie` headers were folded into one with
    /// commas (as `HTTPURLResponse.allHeaderFields` does).
    ///
    /// A comma separates two cookies only where a new cookie can start:
    /// - the text after it, up to the next `=`, is a non-empty run without space, `;` or `,`
    ///   (so the comma in `Expires=Wed, 01 Jan 2031 …` stays);
    /// - and it stands in the name-value pair but not inside a value that opens and closes a
    ///   double quote before the next `;` (`q="a, b=c"` stays one value), or it ends a known
    ///   attribute (`Path=/, b=2`, `Secure, b=2`). A comma inside an unknown attribute never
    ///   splits: `foo=bar; b,az=qux` is one cookie with the attribute `b,az=qux`, not `az=qux`.
    ///
    /// A value that itself holds `, name=` (`z=y, a=b`) is split: a folded header cannot tell
    /// it from two cookies. Only ``CookieJar/capture(response:)`` splits (Foundation folds the
    /// fields it hands over); ``CookieJar/capture(setCookieHeaders:from:)`` takes one cookie per
    /// element and never asks the question.
    static func splitFolded(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        var pieces: [String] = []
        var start = 0
        var segmentStart = 0
        var inNameValue = true
        var quotedUntil: Int?
        var sawEquals = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ";"):
                inNameValue = false
                segmentStart = index + 1
                quotedUntil = nil
            case UInt8(ascii: "=") where inNameValue && !sawEquals:
                sawEquals = true
                quotedUntil = closingQuote(bytes, afterEquals: index)
            case UInt8(ascii: ","):
                let allowed: Bool
                if inNameValue {
                    allowed = quotedUntil.map { index > $0 } ?? true
                } else {
                    allowed = knownAttributes.contains(attributeName(bytes[segmentStart..<index]))
                }
                if allowed && startsCookie(bytes, after: index) {
                    pieces.append(String(decoding: bytes[start..<index], as: UTF8.self))
                    start = index + 1
                    segmentStart = start
                    inNameValue = true
                    sawEquals = false
                    quotedUntil = nil
                }
            default:
                break
            }
            index += 1
        }
        pieces.append(String(decoding: bytes[start...], as: UTF8.self))
        return pieces.map { String(trimWhitespace(Substring($0))) }.filter { !$0.isEmpty }
    }

    /// When the value after the `=` at `equals` opens with `"` (after WSP), the index of the
    /// next `"` before any `;`; otherwise `nil`.
    private static func closingQuote(_ bytes: [UInt8], afterEquals equals: Int) -> Int? {
        var index = equals + 1
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
            if bytes[index] == UInt8(ascii: "\"") { return index }
            index += 1
        }
        return nil
    }

    /// The lowercased, trimmed attribute name of one `;`-separated segment.
    private static func attributeName(_ segment: ArraySlice<UInt8>) -> String {
        let nameEnd = segment.firstIndex(of: UInt8(ascii: "=")) ?? segment.endIndex
        return String(trimWhitespace(Substring(decoding: segment[..<nameEnd], as: UTF8.self))).lowercased()
    }

    private static func startsCookie(_ bytes: [UInt8], after comma: Int) -> Bool {
        var index = comma + 1
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let nameStart = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "="): return index > nameStart
            case 0x20, 0x09, UInt8(ascii: ";"), UInt8(ascii: ","): return false
            default: index += 1
            }
        }
        return false
    }
}
