public import Foundation

/// One change of a web view's page, in the same form for every engine.
///
/// Feeds: on Apple platforms `WebViewBridge` (KVO on `WKWebView.title`, `estimatedProgress`,
/// `isLoading`, plus the app's navigation-delegate helpers for failures); on WebKitGTK the
/// `notify::title`, `notify::estimated-load-progress`, `load-changed` and `load-failed` signals.
/// ``PageStateTracker`` folds them into a ``PageState``.
public enum PageEvent: Sendable, Hashable {
    /// The document title changed; `nil` when the document has none (an empty title is
    /// reported as `nil`).
    case titleChanged(String?)
    /// The estimated load progress changed, 0.0 to 1.0.
    case progressChanged(Double)
    /// A main-frame load started (Apple: `isLoading` became true; WebKitGTK: `load-changed`
    /// `STARTED`).
    /// - Parameter url: the URL being loaded, when known.
    case loadStarted(URL?)
    /// The main-frame load ended, successfully or not (Apple: `isLoading` became false;
    /// WebKitGTK: `load-changed` `FINISHED`, which also follows `load-failed`).
    /// - Parameter url: the page's URL, when known.
    case loadFinished(URL?)
    /// The current (or latest) load has an error: an HTTP status outside 2xx (the error page
    /// still loads), a failed load, or an ended web content process. Cancellations are not
    /// reported. The load's end is reported separately by ``loadFinished(_:)``.
    case loadFailed(PageLoadError)
}
