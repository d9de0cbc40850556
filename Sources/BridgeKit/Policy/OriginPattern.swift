internal import Foundation

/// One entry of an origin allowlist: an exact origin, or every subdomain of a host.
///
/// Written as text: `"https://app.example"` (exact scheme, host and port) or
/// `"https://*.example.com"` (any host that ends in `.example.com`, same scheme and port; the
/// apex `example.com` itself is **not** included: list it separately). No other wildcard form
/// exists, so a pattern can never match more than its author wrote.
///
/// ## Mistyped patterns
///
/// Text that is neither form (`"app.example"` without a scheme, `"https://*example.com"`,
/// `"https://app.example/app"`) never matches anything, so a typo denies rather than allows. It is
/// reported when the pattern is made, not as a `forbidden` refusal of every call later:
/// - ``init(validating:)``, ``AccessPolicy/checkedOrigins(_:allowsSubframes:allowsOpaqueOrigins:)``,
///   ``AccessPolicy/validate()`` and ``BridgeConfiguration/validate()`` throw an
///   ``OriginPatternError`` naming the text and the fix;
/// - the non-throwing ``init(_:)`` (and a string literal) keeps the error in ``error`` and writes
///   it once per distinct text to standard error, prefixed `BridgeKit:`.
///
/// The non-throwing forms stay for source compatibility and for literals; use the throwing ones
/// for origins read from settings, a command line or a server.
public struct OriginPattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Kind: Sendable, Hashable {
        case exact(SecurityOrigin)
        case subdomains(scheme: String, suffix: String, port: Int?)
        case invalid(OriginPatternError)
    }

    private let kind: Kind

    /// Parses a pattern, throwing when the text is neither form.
    /// - Parameter text: `"scheme://host[:port]"` or `"scheme://*.host[:port]"`.
    /// - Throws: ``OriginPatternError`` with the text and the reason.
    public init(validating text: String) throws(OriginPatternError) {
        switch Self.parse(text) {
        case .success(let kind): self.kind = kind
        case .failure(let error): throw error
        }
    }

    /// Parses a pattern. Text that is neither form never matches anything (``isValid`` is
    /// `false`, ``error`` says why), so a typo denies rather than allows; the problem is written
    /// once per distinct text to standard error (see "Mistyped patterns" above).
    /// - Parameter text: `"scheme://host[:port]"` or `"scheme://*.host[:port]"`.
    public init(_ text: String) {
        switch Self.parse(text) {
        case .success(let kind):
            self.kind = kind
        case .failure(let error):
            kind = .invalid(error)
            Self.report(error)
        }
    }

    /// Parses a pattern written as a string literal; see ``init(_:)``.
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

    /// Why the text is not a pattern, or `nil` when it is one.
    public var error: OriginPatternError? {
        if case .invalid(let error) = kind { return error }
        return nil
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

    /// The pattern in its canonical form (`"https://*.example.com"`), or `invalid(<text>)`.
    public var description: String {
        switch kind {
        case .exact(let origin): origin.description
        case .subdomains(let scheme, let suffix, let port):
            "\(scheme)://*\(suffix)" + (port.map { ":\($0)" } ?? "")
        case .invalid(let error): "invalid(\(error.text))"
        }
    }

    // MARK: Parsing

    private static func parse(_ text: String) -> Result<Kind, OriginPatternError> {
        func failure(_ reason: OriginPatternError.Reason) -> Result<Kind, OriginPatternError> {
            .failure(OriginPatternError(text: text, reason: reason))
        }
        if text == "null" { return failure(.opaqueOrigin) }
        guard let separator = text.range(of: "://"), !text[..<separator.lowerBound].isEmpty else {
            return failure(.missingScheme)
        }
        let scheme = String(text[..<separator.lowerBound])
        var rest = Substring(text[separator.upperBound...])
        let wildcard = rest.hasPrefix("*.")
        if wildcard { rest = rest.dropFirst(2) }
        if rest.contains("*") { return failure(.misplacedWildcard) }
        let hostEnd = rest.firstIndex { "/?#:@".contains($0) } ?? rest.endIndex
        if rest[..<hostEnd].isEmpty, !rest.hasPrefix("[") { return failure(.missingHost) }
        guard let origin = SecurityOrigin("\(scheme)://\(rest)") else { return failure(.notAnOrigin) }
        guard wildcard else { return .success(.exact(origin)) }
        return .success(.subdomains(scheme: origin.scheme, suffix: "." + origin.host, port: origin.port))
    }

    // MARK: Reporting

    /// The texts already reported, so a pattern built in a loop is reported once.
    private static let reported = Locked(Set<String>())

    /// Writes `error` to standard error the first time its text is seen.
    private static func report(_ error: OriginPatternError) {
        let isNew = reported.withLock { $0.insert(error.text).inserted }
        guard isNew else { return }
        FileHandle.standardError.write(Data("BridgeKit: \(error.description)\n".utf8))
    }
}
