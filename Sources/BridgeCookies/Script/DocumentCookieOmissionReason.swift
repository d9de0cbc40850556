extension DocumentCookieOmission {
    /// Why `document.cookie` cannot express a cookie.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The cookie is HttpOnly: a script can neither see nor set it (RFC 6265 §5.3 step 10,
        /// §5.4 "non-HTTP API"; field case R33).
        case httpOnly
        /// The name, value or path holds `;`: the assignment would end there and the rest would
        /// become attributes (RFC 6265 §5.2; field case R31).
        case semicolon
        /// The name, value or path holds a control character other than HTAB, which the
        /// browser ignores the cookie for (draft-ietf-httpbis-rfc6265bis §5.6 step 2).
        case controlCharacter
        /// The name or value starts or ends with space or HTAB, which §5.2 strips: the page
        /// would get a different cookie.
        case outerWhitespace
        /// The name is empty or holds `=`: §5.2 would split the assignment elsewhere.
        case invalidName
        /// A `__Secure-` or `__Host-` cookie a script on this page cannot set: the page is not
        /// `https`, or the cookie is not Secure, or (`__Host-`) it has a Domain or a path other
        /// than `/` (draft-ietf-httpbis-rfc6265bis §4.1.3).
        case prefixNotSettable
        /// The path does not start with `/`, or the domain is not a host name or IP literal.
        case invalidAttribute

        /// A phrase for logs.
        public var description: String {
            switch self {
            case .httpOnly: return "HttpOnly cookies are not visible to scripts"
            case .semicolon: return "a ';' in the name, value or path would become an attribute"
            case .controlCharacter: return "a control character in the name, value or path"
            case .outerWhitespace: return "outer whitespace in the name or value would be stripped"
            case .invalidName: return "the name is empty or holds '='"
            case .prefixNotSettable: return "a script on this page cannot set this __Secure-/__Host- cookie"
            case .invalidAttribute: return "the path or domain cannot be written"
            }
        }
    }
}
