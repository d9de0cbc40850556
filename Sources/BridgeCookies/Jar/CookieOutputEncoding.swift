/// How a cookie's name and value are written where they leave the jar: the `Cookie` header
/// and the `document.cookie` script apply the same choice (field case R43).
///
/// RFC 6265 §5.4 step 4 writes each cookie's name and value as stored, and the jar stores them
/// as received (§5.2), so the default sends a server back exactly the octets it set — `foo=春节`
/// comes back as `foo=春节` (UTF-8), as browsers do. Percent-encoding is an explicit choice for
/// servers whose HTTP stack accepts only ASCII header values; it is one-way (a server must
/// percent-decode to read the original), so it is never applied by default.
public enum CookieOutputEncoding: Sendable, Hashable {
    /// Names and values as stored (RFC 6265 §5.4 step 4). The default.
    case asStored
    /// Non-ASCII characters of names and values percent-encoded as UTF-8
    /// (`Zürich` → `Z%C3%BCrich`); ASCII, `%` included, is left as it is.
    case percentEncodedNonASCII

    /// Writes `text` (a stored name or value) in this encoding.
    func apply(_ text: String) -> String {
        switch self {
        case .asStored: return text
        case .percentEncodedNonASCII: return CookieValuePolicy.percentEncodingNonASCII(text)
        }
    }
}
