package import Foundation

/// The part of a web view the KVO-to-page-event mapping reads: `WKWebView`'s KVO-compliant
/// `title`, `url`, `isLoading` and `estimatedProgress` (WKWebView.h) on Apple platforms, a fake
/// in the Linux tests.
@MainActor
package protocol ObservedPage: AnyObject {
    /// The document's title (`WKWebView.title`).
    var title: String? { get }
    /// The current URL (`WKWebView.url`).
    var url: URL? { get }
    /// Whether a load is in progress (`WKWebView.isLoading`).
    var isLoading: Bool { get }
    /// The load's progress, 0.0 to 1.0 (`WKWebView.estimatedProgress`).
    var estimatedProgress: Double { get }
}

/// Maps KVO change notifications of an ``ObservedPage`` to ``PageEvent``s for a
/// ``PageStateTracker``. It reads the current values from the page rather than from the
/// change record, so coalesced notifications cannot report stale values, and it turns
/// `isLoading` into edges (rising: a load started; falling: it finished). Page state only: a load
/// that starts may never commit, so page generations come from commits, not from here.
///
/// Thread: main actor (WebKit changes these properties on the main thread).
@MainActor
package final class PageObservation {
    private let tracker: PageStateTracker
    private weak var page: (any ObservedPage)?
    private var wasLoading = false
    /// Whether notifications still produce events; ``stop()`` ends it.
    package private(set) var isActive = true

    /// Starts mapping `page`'s notifications into `tracker`, and reports its current state.
    package init(page: any ObservedPage, tracker: PageStateTracker) {
        self.page = page
        self.tracker = tracker
        wasLoading = page.isLoading
        tracker.send(.titleChanged(page.title))
        if page.isLoading {
            tracker.send(.loadStarted(page.url))
        }
    }

    /// Later notifications are ignored.
    package func stop() {
        isActive = false
    }

    /// `title` changed.
    package func titleDidChange() {
        guard isActive, let page else { return }
        tracker.send(.titleChanged(page.title))
    }

    /// `estimatedProgress` changed.
    package func progressDidChange() {
        guard isActive, let page else { return }
        tracker.send(.progressChanged(page.estimatedProgress))
    }

    /// `isLoading` changed: a rising edge starts a load, a falling one ends it; no edge, no event.
    package func loadingDidChange() {
        guard isActive, let page else { return }
        let isLoading = page.isLoading
        guard isLoading != wasLoading else { return }
        wasLoading = isLoading
        tracker.send(isLoading ? .loadStarted(page.url) : .loadFinished(page.url))
    }
}
