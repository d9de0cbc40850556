#if canImport(WebKit)
import WebKit

extension WebViewBridge {
    /// Starts KVO on the web view's `title`, `estimatedProgress` and `isLoading` (all documented
    /// as KVO-compliant in `WKWebView.h`) for ``pageState``, and reports the current state.
    ///
    /// Swift 6: the block-based `observe(_:options:changeHandler:)` takes a `@Sendable`,
    /// nonisolated handler, while `WKWebView`'s properties and this bridge are main-actor
    /// isolated. WebKit changes these properties on the main thread only (its page load state
    /// lives in the UI process's main thread), and KVO calls the handler synchronously on the
    /// thread of the change, so each handler body runs inside `MainActor.assumeIsolated`. That
    /// keeps the events synchronous and in order with the app's navigation-delegate calls (a
    /// `Task` hop would reorder them) and traps at once if the assumption were ever broken,
    /// rather than racing. The handlers read the current values from the web view rather than
    /// from the change record, so coalesced notifications cannot report stale values.
    func startObserving(_ webView: WKWebView) {
        wasLoading = webView.isLoading
        pageState.send(.titleChanged(webView.title))
        if webView.isLoading {
            pageState.send(.loadStarted(webView.url))
        }
        observations = [
            webView.observe(\.title, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.titleDidChange() }
            },
            webView.observe(\.estimatedProgress, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.progressDidChange() }
            },
            webView.observe(\.isLoading, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.loadingDidChange() }
            },
        ]
    }

    /// Ends every observation (`NSKeyValueObservation.invalidate()`).
    func stopObserving() {
        for observation in observations {
            observation.invalidate()
        }
        observations.removeAll()
    }

    private func titleDidChange() {
        guard isAttached, let webView else { return }
        pageState.send(.titleChanged(webView.title))
    }

    private func progressDidChange() {
        guard isAttached, let webView else { return }
        pageState.send(.progressChanged(webView.estimatedProgress))
    }

    /// `isLoading` edges: rising starts a load, falling ends it. Page state only: a load that
    /// starts may never commit, so page generations come from commits
    /// (``NavigationSignal``).
    private func loadingDidChange() {
        guard isAttached, let webView else { return }
        let isLoading = webView.isLoading
        guard isLoading != wasLoading else { return }
        wasLoading = isLoading
        if isLoading {
            pageState.send(.loadStarted(webView.url))
        } else {
            pageState.send(.loadFinished(webView.url))
        }
    }
}
#endif
