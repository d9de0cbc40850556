/// Why the text of an origin pattern is not one of the two forms ``OriginPattern`` accepts
/// (`"https://app.example"` or `"https://*.example.com"`).
///
/// Thrown by ``OriginPattern/init(validating:)``, ``AccessPolicy/validate()`` and
/// ``BridgeConfiguration/validate()``; kept by a pattern made with the non-throwing
/// ``OriginPattern/init(_:)`` in ``OriginPattern/error``. Its ``description`` names the text and
/// says how to write it, for a log line or a test failure.
public struct OriginPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Reason: String, Sendable, Hashable {
        /// No `scheme://` part, for example `"app.example"`; an origin always has a scheme.
        case missingScheme = "missing_scheme"
        /// A scheme without a host, for example `"https://"` or `"https://*."`.
        case missingHost = "missing_host"
        /// A `*` anywhere but right after `://` and before a dot (`"https://*example.com"`,
        /// `"*.example.com"`, `"https://app.*.com"`).
        case misplacedWildcard = "misplaced_wildcard"
        /// A path, query, fragment or user info after the host (`"https://app.example/app"`):
        /// an origin is only `scheme://host[:port]`.
        case notAnOrigin = "not_an_origin"
        /// `"null"`, the serialization of an opaque origin, which no pattern can name; use
        /// ``AccessPolicy/allowsOpaqueOrigins`` instead.
        case opaqueOrigin = "opaque_origin"
    }

    /// The pattern's text, as written.
    public let text: String
    /// What is wrong with it.
    public let reason: Reason

    /// Creates an error.
    /// - Parameters:
    ///   - text: the pattern's text, as written.
    ///   - reason: what is wrong with it.
    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    /// One sentence naming the text, the problem and, where it can be guessed, the fix.
    public var description: String {
        let quoted = "origin pattern \"\(text)\""
        switch reason {
        case .missingScheme:
            let guess = Self.guessedOrigin(text).map { "; write \"\($0)\"" } ?? ""
            return "\(quoted) has no scheme and matches no origin\(guess)"
        case .missingHost:
            return "\(quoted) has no host and matches no origin"
        case .misplacedWildcard:
            return "\(quoted) matches no origin: the only wildcard form is \"scheme://*.example.com\""
        case .notAnOrigin:
            return "\(quoted) matches no origin: an origin is scheme://host[:port], without path, query or user"
        case .opaqueOrigin:
            return "\(quoted) cannot name an opaque origin; set AccessPolicy.allowsOpaqueOrigins instead"
        }
    }

    /// The origin a pattern without `scheme://` most likely meant: `"app:bundle"` (a scheme and a
    /// colon, as an app's own URL scheme is often written) is `"app://bundle"`; `"app.example"`
    /// and `"localhost:8080"` (a host, perhaps with a port) are `"https://…"`. `nil` for text
    /// that is empty or has a space.
    static func guessedOrigin(_ text: String) -> String? {
        guard !text.isEmpty, !text.contains(" ") else { return nil }
        if let colon = text.firstIndex(of: ":") {
            let scheme = text[..<colon]
            let rest = text[text.index(after: colon)...].drop { $0 == "/" }
            let isScheme =
                scheme.first?.isLetter == true
                && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            let isPort = !rest.isEmpty && rest.allSatisfy(\.isWholeNumber)
            if isScheme, !isPort, !rest.isEmpty { return "\(scheme.lowercased())://\(rest)" }
        }
        return "https://\(text)"
    }
}
