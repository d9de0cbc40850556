public import Foundation

/// A web security origin: scheme, host and port (RFC 6454), as WebKit reports it for the
/// document that sent a message (`WKFrameInfo.securityOrigin`, or `self.origin` read by
/// BridgeKit's relay script in an isolated script world on WebKitGTK). Always the document's
/// origin, never its URL's: an opaque origin has no `SecurityOrigin` (``MessageSource/origin`` is
/// `nil`).
///
/// Scheme and host are lowercased. The default port of `http` (80) and `https` (443) is stored as
/// `nil`, so `https://a.example` and `https://a.example:443` are the same origin.
public struct SecurityOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased, for example `"https"`.
    public let scheme: String
    /// The host, lowercased, without brackets for IPv6 (`"::1"`).
    public let host: String
    /// The port, or `nil` for the scheme's default port.
    public let port: Int?

    /// Creates an origin. `port` equal to the scheme's default (80 for http, 443 for https), or
    /// 0 (WebKit's "default port"), is stored as `nil`.
    public init(scheme: String, host: String, port: Int? = nil) {
        let scheme = scheme.lowercased()
        self.scheme = scheme
        self.host = host.lowercased()
        if let port, port != 0, port != Self.defaultPort(for: scheme) {
            self.port = port
        } else {
            self.port = nil
        }
    }

    /// Parses a serialized origin such as `"https://app.example:8443"` (the form of
    /// `location.origin`).
    ///
    /// - Returns: `nil` for `"null"` (an opaque origin: sandboxed frames, `data:` URLs) and for
    ///   text that is not `scheme://host[:port]`.
    public init?(_ serialized: String) {
        guard serialized != "null", let components = URLComponents(string: serialized),
            let scheme = components.scheme, let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/",
            components.query == nil, components.fragment == nil, components.user == nil
        else { return nil }
        self.init(
            scheme: scheme, host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: components.port)
    }

    /// The origin of `url`, or `nil` when the URL has no host (`file:`, `about:blank`, `data:`).
    public init?(url: URL) {
        guard let scheme = url.scheme, let host = url.host, !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// The serialized origin, `scheme://host[:port]`, as `location.origin` writes it.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        if let port { return "\(scheme)://\(hostPart):\(port)" }
        return "\(scheme)://\(hostPart)"
    }

    private static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}
