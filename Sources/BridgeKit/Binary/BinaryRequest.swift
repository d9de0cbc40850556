/// A page's request to the byte transport, as the engine glue hands it to
/// ``BinaryTransfers/handle(_:)``: a custom URL scheme request (`webkit_uri_scheme_request` on
/// WebKitGTK, `WKURLSchemeTask` on Apple platforms) stripped down to what the policy reads.
public struct BinaryRequest: Sendable {
    /// The HTTP method: `POST` uploads a body, `GET` downloads one, `OPTIONS` is a CORS preflight.
    public var method: String
    /// The request URL, `webbridge-binary://transfer/<token>`.
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
    /// (scheme ``BinaryTransfers/scheme``, host `transfer`) and the path has a token's shape.
    var token: String? {
        let prefix = BinaryTransfers.scheme + "://transfer/"
        guard url.hasPrefix(prefix) else { return nil }
        let token = String(url.dropFirst(prefix.count))
        return BinaryToken.isValid(token) ? token : nil
    }
}
