#if WebKitGTK
/// A step of a page load (WebKit's `load-changed` signal, `WebKitLoadEvent`).
public enum GTKLoadEvent: Sendable, Equatable {
    /// `WEBKIT_LOAD_STARTED`: a new load was requested.
    case started
    /// `WEBKIT_LOAD_REDIRECTED`: the server redirected; ``GTKWebView/uri`` is the new URI.
    case redirected
    /// `WEBKIT_LOAD_COMMITTED`: the first data arrived; the new document replaces the old one.
    case committed
    /// `WEBKIT_LOAD_FINISHED`: the load ended (also after a failure, see ``GTKLoadFailure``).
    case finished
}

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
