/// A main-frame response's error, held until its navigation commits.
///
/// An engine decides the response policy before the navigation commits, and many navigations
/// with an error response never commit: a download (a 404 with `Content-Disposition:
/// attachment`), a response the app's policy ignores, a navigation cancelled by the next one.
/// The document on screen then stays, so the error is not its page's: it is recorded only when
/// the navigation commits, and dropped when this one fails (and on WebKitGTK, whose `load-changed`
/// reports starts, when another one starts; a later response replaces it everywhere). Used by
/// both adapters (`PageGenerations` for `WKWebView`, `GTKPageObserver` for WebKitGTK).
package struct HeldResponseError: Sendable {
    private var error: PageLoadError?

    package init() {}

    /// A main-frame response arrived; `error` is its classification (`nil`: fine).
    package mutating func responseReceived(_ error: PageLoadError?) {
        self.error = error
    }

    /// The navigation will not commit (it failed, was cancelled or another one started).
    package mutating func drop() {
        error = nil
    }

    /// The navigation committed: its error, if any, which is no longer held.
    package mutating func commit() -> PageLoadError? {
        defer { error = nil }
        return error
    }
}
