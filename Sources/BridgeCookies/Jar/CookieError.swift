/// Why a cookie was refused by the jar, the script builder or a conversion.
///
/// Cases name the cookie but never carry its value, so an error can be logged without leaking
/// a session token.
public enum CookieError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `Set-Cookie` string has no `=` before its first `;`, or its name is empty
    /// (RFC 6265 §5.2 steps 2 and 5: ignore the whole header).
    case malformedSetCookie
    /// The name is empty, or holds `=`, `;`, a control other than HTAB, or leading or trailing
    /// whitespace: no `Set-Cookie` header can carry it (``CookieValuePolicy``).
    case invalidCookieName(String)
    /// The value holds `;`, a control other than HTAB, or leading or trailing whitespace: no
    /// `Set-Cookie` header can carry it (``CookieValuePolicy``, field case R31).
    case invalidCookieValue(name: String)
    /// An attribute cannot be written safely: a path that does not start with `/` or holds a
    /// control or `;`; a domain that is empty, malformed or not ASCII (field case R31).
    /// `attribute` is `"path"` or `"domain"`.
    case invalidCookieAttribute(name: String, attribute: String)
    /// Name and value together exceed the per-cookie limit, in UTF-8 bytes
    /// (draft-ietf-httpbis-rfc6265bis §5.6 step 4; 4096 by default, see
    /// ``CookieJar/Configuration/maxCookieBytes``).
    case cookieTooLarge(name: String, bytes: Int, limit: Int)
    /// The URL has no host or a scheme cookies do not apply to (only `http`, `https`, `ws`,
    /// `wss`; the HTML spec calls other documents "cookie-averse").
    case unsupportedURL(String)
    /// The `Domain` attribute does not domain-match the request host (RFC 6265 §5.3 step 6).
    case domainMismatch(domain: String, host: String)
    /// The `Domain` attribute is a public suffix (a single label such as `com`, or a listed
    /// suffix) different from the request host (RFC 6265 §5.3 step 5).
    case publicSuffix(domain: String)
    /// A non-HTTP source (a script) tried to set an HttpOnly cookie (RFC 6265 §5.3 step 10).
    case httpOnlyFromNonHTTPSource(name: String)
    /// A non-HTTP source tried to replace an HttpOnly cookie (RFC 6265 §5.3 step 11).
    case overwritesHTTPOnly(name: String)
    /// A `Secure` cookie arrived over a non-secure channel (draft-ietf-httpbis-rfc6265bis
    /// §5.7 "Secure" step: only secure origins may set Secure cookies).
    case secureFromInsecureOrigin(name: String)
    /// A non-secure request tried to replace a Secure cookie of the same name whose domain and
    /// path overlap (draft-ietf-httpbis-rfc6265bis §5.7, "Strict Secure Cookies").
    case overwritesSecure(name: String)
    /// A `__Secure-` cookie without Secure, or a `__Host-` cookie that is not Secure, has a
    /// `Domain` or a path other than `/` (draft-ietf-httpbis-rfc6265bis §4.1.3).
    case prefixViolation(name: String)
    /// A `Partitioned` cookie without `Secure` (CHIPS, draft-cutler-httpbis-partitioned-cookies:
    /// browsers refuse it).
    case partitionedWithoutSecure(name: String)

    /// A sentence for logs. Never contains a cookie value.
    public var description: String {
        switch self {
        case .malformedSetCookie:
            return "The Set-Cookie string has no name=value pair (RFC 6265 5.2)."
        case .invalidCookieName(let name):
            return
                "The cookie name \"\(name)\" is empty or holds '=', a semicolon, a control character or outer whitespace."
        case .invalidCookieValue(let name):
            return "The value of cookie \"\(name)\" holds a semicolon, a control character or outer whitespace."
        case .invalidCookieAttribute(let name, let attribute):
            return "The \(attribute) of cookie \"\(name)\" cannot be written safely."
        case .cookieTooLarge(let name, let bytes, let limit):
            return "Cookie \"\(name)\" has \(bytes) bytes of name and value; the limit is \(limit) (RFC 6265bis 5.6)."
        case .unsupportedURL(let url):
            return "Cookies do not apply to \(url) (no host, or not http/https/ws/wss)."
        case .domainMismatch(let domain, let host):
            return "Domain \(domain) does not domain-match host \(host) (RFC 6265 5.3 step 6)."
        case .publicSuffix(let domain):
            return "Domain \(domain) is a public suffix (RFC 6265 5.3 step 5)."
        case .httpOnlyFromNonHTTPSource(let name):
            return "A script cannot set the HttpOnly cookie \"\(name)\" (RFC 6265 5.3 step 10)."
        case .overwritesHTTPOnly(let name):
            return "A script cannot replace the HttpOnly cookie \"\(name)\" (RFC 6265 5.3 step 11)."
        case .secureFromInsecureOrigin(let name):
            return "The Secure cookie \"\(name)\" came over a non-secure channel (RFC 6265bis)."
        case .overwritesSecure(let name):
            return "A non-secure request cannot replace the Secure cookie \"\(name)\" (RFC 6265bis)."
        case .prefixViolation(let name):
            return "Cookie \"\(name)\" breaks the rules of its __Secure-/__Host- prefix (RFC 6265bis 4.1.3)."
        case .partitionedWithoutSecure(let name):
            return "The Partitioned cookie \"\(name)\" is not Secure (CHIPS)."
        }
    }
}
