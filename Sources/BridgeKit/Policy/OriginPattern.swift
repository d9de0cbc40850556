/// One entry of an origin allowlist: an exact origin, or every subdomain of a host.
///
/// Written as text: `"https://app.example"` (exact scheme, host and port) or
/// `"https://*.example.com"` (any host that ends in `.example.com`, same scheme and port; the
/// apex `example.com` itself is **not** included: list it separately). No other wildcard form
/// exists, so a pattern can never match more than its author wrote.
public struct OriginPattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Kind: Sendable, Hashable {
        case exact(SecurityOrigin)
        case subdomains(scheme: String, suffix: String, port: Int?)
        case invalid(String)
    }

    private let kind: Kind

    /// Parses a pattern. Text that is neither form never matches anything (and
    /// ``isValid`` is `false`), so a typo denies rather than allows.
    public init(_ text: String) {
        if let range = text.range(of: "://*.") {
            let scheme = String(text[..<range.lowerBound])
            let rest = String(text[range.upperBound...])
            if let probe = SecurityOrigin("\(scheme)://\(rest)"), !probe.host.isEmpty {
                kind = .subdomains(scheme: probe.scheme, suffix: "." + probe.host, port: probe.port)
            } else {
                kind = .invalid(text)
            }
        } else if let origin = SecurityOrigin(text) {
            kind = .exact(origin)
        } else {
            kind = .invalid(text)
        }
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// An exact-origin pattern.
    public init(origin: SecurityOrigin) {
        kind = .exact(origin)
    }

    /// Whether the text parsed as one of the two forms.
    public var isValid: Bool {
        if case .invalid = kind { return false }
        return true
    }

    /// Whether `origin` is allowed by this pattern.
    public func matches(_ origin: SecurityOrigin) -> Bool {
        switch kind {
        case .exact(let allowed):
            return allowed == origin
        case .subdomains(let scheme, let suffix, let port):
            return origin.scheme == scheme && origin.port == port && origin.host.hasSuffix(suffix)
                && origin.host.count > suffix.count
        case .invalid:
            return false
        }
    }

    public var description: String {
        switch kind {
        case .exact(let origin): origin.description
        case .subdomains(let scheme, let suffix, let port):
            "\(scheme)://*\(suffix)" + (port.map { ":\($0)" } ?? "")
        case .invalid(let text): "invalid(\(text))"
        }
    }
}
