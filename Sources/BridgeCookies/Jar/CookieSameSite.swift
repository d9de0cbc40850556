/// The SameSite attribute (draft-ietf-httpbis-rfc6265bis §4.1.2.7).
///
/// The jar keeps and carries it (into `document.cookie` scripts, `HTTPCookie` on Apple
/// platforms and the web view's store) but does not enforce it: requests the host makes have no
/// cross-site initiator. An unknown value is treated as absent (6265bis §5.6.7 "Default"
/// enforcement), never as `Strict`.
public enum CookieSameSite: String, Sendable, Hashable, CaseIterable {
    /// `SameSite=Strict`.
    case strict = "Strict"
    /// `SameSite=Lax`.
    case lax = "Lax"
    /// `SameSite=None`.
    case none = "None"

    /// Reads an attribute value case-insensitively (`lax`, `LAX` → ``lax``).
    /// - Returns: `nil` for any other value, which 6265bis treats as if SameSite were absent.
    public init?(attributeValue: some StringProtocol) {
        switch attributeValue.lowercased() {
        case "strict": self = .strict
        case "lax": self = .lax
        case "none": self = .none
        default: return nil
        }
    }
}
