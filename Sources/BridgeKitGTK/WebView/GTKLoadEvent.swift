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
#endif
