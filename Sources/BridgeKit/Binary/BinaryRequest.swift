/// A page's request to the byte transport, as the engine glue hands it to
/// ``BinaryTransfers/handle(_:)``: a custom URL scheme request (`webkit_uri_scheme_request` on
/// WebKitGTK, `WKURLSchemeTask` on Apple platforms) stripped down to what the policy reads.
public struct BinaryRequest: Sendable {
    /// The HTTP method: `POST` uploads a body, `GET` downloads one, `OPTIONS` is a CORS preflight.
    public var method: String
    /// The request URL: `webbridge-binary://transfer/<token>` for a whole body or a download,
    /// `webbridge-binary://transfer/<token>?offset=<n>` for the part of an upload or a download
    /// that starts at byte `n`, `webbridge-binary://transfer/<token>?cancel` to end a download the
    /// page reads in parts (docs/protocol.md, "Binary values").
    public var url: String
    /// The request's `Origin` header as the engine set it (page scripts cannot set it); `nil` when absent.
    public var origin: String?
    /// The request body of an upload; `nil` for other requests.
    public var body: (any BinaryBodyReader)?

    /// Creates a request.
    public init(method: String, url: String, origin: String?, body: (any BinaryBodyReader)? = nil) {
        self.method = method
        self.url = url
        self.origin = origin
        self.body = body
    }

    /// The token the URL names: its path after `/`, when the URL is the transport's
    /// (scheme ``BinaryTransfers/scheme``, host `transfer`), the path has a token's shape, and
    /// the query, if any, is exactly `offset=<decimal digits>` or `cancel`.
    var token: String? { target?.token }

    /// The byte offset of a part (`?offset=<n>`); `nil` for a whole body.
    var offset: Int? { target?.offset }

    /// Whether the request ends a download (`?cancel`).
    var cancels: Bool { target?.cancels ?? false }

    private var target: (token: String, offset: Int?, cancels: Bool)? {
        let prefix = BinaryTransfers.scheme + "://transfer/"
        guard url.hasPrefix(prefix) else { return nil }
        let rest = url.dropFirst(prefix.count)
        let pieces = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let token = String(pieces[0])
        guard BinaryToken.isValid(token) else { return nil }
        guard pieces.count == 2 else { return (token, nil, false) }
        let query = pieces[1]
        if query == "cancel" { return (token, nil, true) }
        let digits = query.dropFirst("offset=".count)
        guard query.hasPrefix("offset="), !digits.isEmpty, digits.count <= 15,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let offset = Int(digits)
        else { return nil }
        return (token, offset, false)
    }
}
