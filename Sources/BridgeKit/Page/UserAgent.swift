/// User-agent text: appending an application token to an engine's user agent, and — through a
/// separately named function — replacing it.
///
/// Apps almost always want to *append* (field case R45): a replaced user agent loses the
/// `AppleWebKit`, OS and `Mobile` tokens that sites use to decide what to serve. Appending is
/// what `WKWebViewConfiguration.applicationNameForUserAgent` and WebKitGTK's
/// `webkit_settings_set_user_agent_with_application_details` do; replacing is
/// `WKWebView.customUserAgent` / `webkit_settings_set_user_agent`, available here only as
/// ``replacement(_:)``.
///
/// Character rule (RFC 9110 §5.5, §10.1.5): a `User-Agent` field value is visible US-ASCII and
/// spaces ("newly defined fields SHOULD limit their field values to US-ASCII octets"); control
/// characters (CR, LF, NUL, DEL, …) would end or corrupt the header. Tokens and replacements with
/// any character outside `0x20...0x7E` (a tab counts as a space) are refused.
public enum UserAgent {
    /// Appends an application token to a user agent.
    ///
    /// - The result is `userAgent` (without trailing spaces), one space, and the token:
    ///   `appending("ShopApp/2.1", to: base) == base + " ShopApp/2.1"`, so it always starts with
    ///   the base (nothing of the engine's user agent is lost).
    /// - An empty token (or one of only spaces) returns `userAgent` unchanged.
    /// - A token already present in `userAgent` as whole space-separated words is not added
    ///   again (appending twice is harmless). A different version of the same product
    ///   (`ShopApp/2.0` vs `ShopApp/2.1`) is a different token and is appended.
    /// - An empty `userAgent` gives the token alone (no leading space).
    ///
    /// - Parameters:
    ///   - token: the application token, for example `"ShopApp/2.1"`; runs of spaces inside it
    ///     become one space and outer spaces are dropped.
    ///   - userAgent: the engine's user agent or application name (not validated: it is the
    ///     engine's own text).
    /// - Returns: the combined user agent.
    /// - Throws: ``UserAgentError`` when `token` has a control character or a character outside
    ///   visible US-ASCII.
    public static func appending(_ token: String, to userAgent: String) throws(UserAgentError) -> String {
        appending(try ApplicationToken(token), to: userAgent)
    }

    /// Appends a validated application token to a user agent; see the `String` overload of
    /// `appending(_:to:)` for the rules. Never throws: the token was validated when it was made.
    public static func appending(_ token: ApplicationToken, to userAgent: String) -> String {
        guard !token.isEmpty else { return userAgent }
        let base = trimmingTrailingSpaces(userAgent)
        if base.isEmpty { return token.text }
        let words = " " + collapsingSpaces(base) + " "
        if words.contains(" " + token.text + " ") { return base }
        return base + " " + token.text
    }

    /// Validates a complete user agent that *replaces* the engine's own (for
    /// `WKWebView.customUserAgent` or `webkit_settings_set_user_agent`).
    ///
    /// Prefer `appending(_:to:)`: a replacement drops every token the engine would
    /// have sent (field case R45).
    ///
    /// - Parameter userAgent: the whole user agent.
    /// - Returns: the text with runs of spaces collapsed and outer spaces removed.
    /// - Throws: ``UserAgentError/empty`` for an empty text; ``UserAgentError`` for a control
    ///   or non-ASCII character; ``UserAgentError/malformedProduct(_:)`` when the text is not
    ///   products and comments (``isValidFieldValue(_:)``), which WebKit would ignore.
    public static func replacement(_ userAgent: String) throws(UserAgentError) -> String {
        let normalized = try normalize(userAgent)
        guard !normalized.isEmpty else { throw UserAgentError.empty }
        guard isValidFieldValue(normalized) else { throw UserAgentError.malformedProduct(normalized) }
        return normalized
    }

    /// Whether `text` is a `User-Agent` field value by RFC 9110 section 10.1.5: products
    /// (`name` or `name/version`, each a token of section 5.6.2) and comments in parentheses
    /// (section 5.6.5: nested, with `\`-escapes), separated by spaces, a product first:
    /// `ShopApp/2.1`, `ShopApp/2.1 (build 7) Extra`. WebKit sends only such a value: it ignores
    /// an application name or user agent that is not one (WebCore's
    /// `isValidUserAgentHeaderValue`), without an error, so a token that is not one never
    /// reaches a server.
    public static func isValidFieldValue(_ text: String) -> Bool {
        var reader = FieldValueReader(bytes: Array(text.utf8))
        return reader.readsUserAgent()
    }

    /// Checks the character rule and normalizes spaces: tabs count as spaces, runs of spaces
    /// become one, outer spaces are dropped.
    static func normalize(_ text: String) throws(UserAgentError) -> String {
        var offset = 0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x20...0x7E:
                break
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                throw UserAgentError.controlCharacter(offset: offset)
            default:
                throw UserAgentError.nonASCIICharacter(offset: offset)
            }
            offset += 1
        }
        return collapsingSpaces(text)
    }

    /// Runs of spaces and tabs become one space; outer ones are removed.
    static func collapsingSpaces(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    private static func trimmingTrailingSpaces(_ text: String) -> String {
        var result = Substring(text)
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return String(result)
    }
}

/// Reads a `User-Agent` field value (``UserAgent/isValidFieldValue(_:)``).
private struct FieldValueReader {
    let bytes: [UInt8]
    var index = 0

    /// `product *( RWS ( product / comment ) )`, the whole text.
    mutating func readsUserAgent() -> Bool {
        guard readsProduct() else { return false }
        while index < bytes.count {
            guard isSpace(bytes[index]) else { return false }
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return false }
            guard bytes[index] == UInt8(ascii: "(") ? readsComment() : readsProduct() else { return false }
        }
        return true
    }

    /// `token [ "/" token ]`.
    private mutating func readsProduct() -> Bool {
        guard readsToken() else { return false }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return true }
        index += 1
        return readsToken()
    }

    /// `1*tchar` (RFC 9110 section 5.6.2).
    private mutating func readsToken() -> Bool {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start
    }

    /// `"(" *( ctext / quoted-pair / comment ) ")"` (RFC 9110 section 5.6.5), nested at most
    /// 32 deep.
    private mutating func readsComment() -> Bool {
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "("):
                depth += 1
                if depth > 32 { return false }
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return true }
            case UInt8(ascii: "\\"):
                guard index < bytes.count, bytes[index] == 0x09 || (0x20...0x7E).contains(bytes[index]) else {
                    return false
                }
                index += 1
            case 0x09, 0x20...0x7E:
                break
            default:
                return false
            }
        }
        return false
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `tchar`: a visible US-ASCII character other than a delimiter (`"(),/:;<=>?@[\]{}`).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        guard (0x21...0x7E).contains(byte) else { return false }
        return !#"\"(),/:;<=>?@[\]{}"#.utf8.contains(byte)
    }
}
