#if WebKitGTK
public import BridgeKit
import Foundation

/// Feeds a WebKitGTK view's title, progress, load and response signals into BridgeKit's
/// platform-neutral `PageStateTracker`, classifying main-frame responses and load failures
/// with a `NavigationResponsePolicy`.
///
/// Signals used: `notify::title`, `notify::estimated-load-progress`, `load-changed`,
/// `load-failed`, `decide-policy` (responses), `web-process-terminated`, through
/// ``GTKWebView``'s callbacks. The observer takes those callbacks of the view; set your own
/// handlers on the observer (``onLoadEvent``, ``onPolicyDecision``) instead of on the view.
/// Observation ends with ``stop()`` (called by the host's `close()`), after which the tracker is
/// finished and its streams end.
///
/// Thread: main actor.
@MainActor
public final class GTKPageObserver {
    /// The page state and its event stream.
    public let tracker: PageStateTracker
    /// How responses and failures are classified.
    public let responsePolicy: NavigationResponsePolicy
    /// Called for every load event, after the tracker saw it.
    public var onLoadEvent: (@MainActor (GTKLoadEvent) -> Void)?
    /// Called for every policy decision after responses were classified; its verdict is used.
    /// `nil`: WebKit's default (`useDefault`).
    public var onPolicyDecision: (@MainActor (GTKPolicyRequest, GTKPolicyDecision) -> GTKPolicyVerdict)?
    private weak var webView: GTKWebView?
    /// The error of the latest main-frame response, until its navigation commits.
    private var heldResponseError = HeldResponseError()

    /// Starts observing `webView`.
    /// - Parameters:
    ///   - webView: the view; held weakly.
    ///   - tracker: where events go; default a new tracker.
    ///   - responsePolicy: how responses are classified; default 2xx only.
    public init(
        webView: GTKWebView, tracker: PageStateTracker = PageStateTracker(),
        responsePolicy: NavigationResponsePolicy = NavigationResponsePolicy()
    ) {
        self.webView = webView
        self.tracker = tracker
        self.responsePolicy = responsePolicy
        webView.onTitleChange = { title in tracker.send(.titleChanged(title)) }
        webView.onProgressChange = { progress in tracker.send(.progressChanged(progress)) }
        webView.onLoadEvent = { [weak self, weak webView] event in
            let url = webView?.uri.flatMap(URL.init(string:))
            switch event {
            case .started:
                self?.heldResponseError.drop()
                tracker.send(.loadStarted(url))
            case .committed:
                if let error = self?.heldResponseError.commit() { tracker.send(.loadFailed(error)) }
            case .finished: tracker.send(.loadFinished(url))
            case .redirected: break
            }
            self?.onLoadEvent?(event)
        }
        webView.onLoadFailure = { [weak self] failure in
            self?.heldResponseError.drop()
            guard
                let error = responsePolicy.classifyFailure(
                    domain: failure.domain, code: failure.code, url: URL(string: failure.uri), message: failure.message)
            else { return }
            tracker.send(.loadFailed(error))
        }
        webView.onPolicyDecision = { [weak self] request, decision in
            // A main-frame response's error is the page's only once its navigation commits.
            if request.kind == .response, request.isMainFrame ?? false {
                self?.heldResponseError.responseReceived(
                    responsePolicy.classifyResponse(
                        statusCode: request.statusCode, url: URL(string: request.uri), isMainFrame: true))
            }
            return self?.onPolicyDecision?(request, decision) ?? .useDefault
        }
    }

    /// Stops observing and finishes the tracker. Idempotent.
    public func stop() {
        if let webView {
            webView.onTitleChange = nil
            webView.onProgressChange = nil
            webView.onLoadEvent = nil
            webView.onLoadFailure = nil
            webView.onPolicyDecision = nil
        }
        webView = nil
        tracker.finish()
    }
}
#endif
