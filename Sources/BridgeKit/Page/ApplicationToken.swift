/// An application token for a user agent, such as `ShopApp/2.1`, validated once.
///
/// The text follows ``UserAgent``'s character rule (visible US-ASCII and spaces, RFC 9110 §5.5);
/// spaces are normalized. It is usually one product, `name/version` (RFC 9110 §10.1.5), but may
/// hold several words (`ShopApp/2.1 (build 7)`).
///
/// ``name`` and ``version`` split the text at its first `/`, the two values WebKitGTK's
/// `webkit_settings_set_user_agent_with_application_details(settings, name, version)` takes; it
/// appends `name/version`, so `version.map { name + "/" + $0 } ?? name == text` and both engines
/// send the same token. With no version WebKitGTK would append `name/<WebKit's version>`:
/// BridgeKitGTK appends `name` alone itself then (`webkit_settings_set_user_agent`).
public struct ApplicationToken: Sendable, Hashable, CustomStringConvertible {
    /// The normalized token text; empty for ``empty``.
    public let text: String

    /// The token that appends nothing.
    public static let empty = ApplicationToken(validated: "")

    /// Validates and normalizes a token.
    /// - Parameter text: for example `"ShopApp/2.1"`. Runs of spaces become one space; outer
    ///   spaces are dropped; an empty or blank text gives ``empty``.
    /// - Throws: ``UserAgentError/controlCharacter(offset:)`` or
    ///   ``UserAgentError/nonASCIICharacter(offset:)`` for a forbidden character;
    ///   ``UserAgentError/malformedProduct(_:)`` when the text is not products and comments
    ///   (``UserAgent/isValidFieldValue(_:)``): a `/` with nothing before or after it (`"/2.1"`,
    ///   `"ShopApp/"`), a second `/` in a product, a delimiter such as `@ , [ ]` outside a
    ///   comment, an unclosed `(`. WebKit would drop such a token without a word.
    public init(_ text: String) throws(UserAgentError) {
        let normalized = try UserAgent.normalize(text)
        guard normalized.isEmpty || UserAgent.isValidFieldValue(normalized) else {
            throw UserAgentError.malformedProduct(normalized)
        }
        self.text = normalized
    }

    /// Builds `name/version` (or `name` alone) from its parts.
    /// - Parameters:
    ///   - name: the product name, for example `"ShopApp"`; must not contain `/`.
    ///   - version: the version, for example `"2.1"`; `nil` or empty for none.
    /// - Throws: what ``init(_:)`` throws; ``UserAgentError/malformedProduct(_:)`` when `name`
    ///   is empty or contains `/`.
    public init(name: String, version: String?) throws(UserAgentError) {
        let cleanName = try UserAgent.normalize(name)
        guard !cleanName.isEmpty, !cleanName.contains("/") else { throw UserAgentError.malformedProduct(name) }
        let cleanVersion = try UserAgent.normalize(version ?? "")
        try self.init(cleanVersion.isEmpty ? cleanName : cleanName + "/" + cleanVersion)
    }

    private init(validated: String) {
        text = validated
    }

    /// Whether the token is empty (appending it changes nothing).
    public var isEmpty: Bool { text.isEmpty }

    /// The part before the first `/` (the whole text when there is none), for WebKitGTK's
    /// `application_name`.
    public var name: String {
        guard let slash = text.firstIndex(of: "/") else { return text }
        return String(text[..<slash])
    }

    /// The part after the first `/`, or `nil` when there is none, for WebKitGTK's
    /// `application_version`.
    public var version: String? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        return String(text[text.index(after: slash)...])
    }

    /// The token text.
    public var description: String { text }
}
