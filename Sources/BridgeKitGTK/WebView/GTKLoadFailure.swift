#if WebKitGTK
/// A failed load (WebKit's `load-failed` signal).
public struct GTKLoadFailure: Sendable, Equatable {
    /// The load step in which it failed.
    public let event: GTKLoadEvent
    /// The URI that failed to load.
    public let uri: String
    /// The `GError` message, e.g. "Could not connect to 127.0.0.1: Connection refused".
    public let message: String
    /// The `GError` domain name, e.g. "g-io-error-quark" or "WebKitNetworkError".
    public let domain: String
    /// The `GError` code within the domain.
    public let code: Int

    /// Creates a failure value (for tests and adapters).
    public init(event: GTKLoadEvent, uri: String, message: String, domain: String, code: Int) {
        self.event = event
        self.uri = uri
        self.message = message
        self.domain = domain
        self.code = code
    }
}
#endif
