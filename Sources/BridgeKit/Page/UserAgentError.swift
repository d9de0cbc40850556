/// Why a user-agent token or replacement was refused.
public enum UserAgentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A control character (C0, DEL, C1, U+2028/U+2029) at this Unicode-scalar offset: it could
    /// end the `User-Agent` header and start another.
    case controlCharacter(offset: Int)
    /// A character outside visible US-ASCII at this Unicode-scalar offset (RFC 9110 §5.5).
    case nonASCIICharacter(offset: Int)
    /// A replacement user agent was empty.
    case empty
    /// A token's product is malformed: an empty name before `/` or an empty version after it.
    case malformedProduct(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .controlCharacter(let offset): "The user agent has a control character at offset \(offset)."
        case .nonASCIICharacter(let offset):
            "The user agent has a character outside visible US-ASCII at offset \(offset)."
        case .empty: "A replacement user agent must not be empty."
        case .malformedProduct(let text):
            "The application token \"\(text)\" needs a name before \"/\" and a version after it."
        }
    }
}
