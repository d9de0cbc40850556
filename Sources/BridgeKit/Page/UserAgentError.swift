/// Why a user-agent token or replacement was refused.
public enum UserAgentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A control character (C0, DEL, C1, U+2028/U+2029) at this Unicode-scalar offset: it could
    /// end the `User-Agent` header and start another.
    case controlCharacter(offset: Int)
    /// A character outside visible US-ASCII at this Unicode-scalar offset (RFC 9110 §5.5).
    case nonASCIICharacter(offset: Int)
    /// A replacement user agent was empty.
    case empty
    /// The text is not a `User-Agent` value (``UserAgent/isValidFieldValue(_:)``): for example
    /// an empty name before `/`, an empty version after it, a second `/`, a delimiter outside a
    /// comment or an unclosed `(`.
    case malformedProduct(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .controlCharacter(let offset): "The user agent has a control character at offset \(offset)."
        case .nonASCIICharacter(let offset):
            "The user agent has a character outside visible US-ASCII at offset \(offset)."
        case .empty: "A replacement user agent must not be empty."
        case .malformedProduct(let text):
            "\"\(text)\" is not a User-Agent value: products (name/version, letters, digits and !#$%&'*+-.^_`|~) "
                + "and comments in parentheses, separated by spaces (RFC 9110 section 10.1.5)."
        }
    }
}
