#if canImport(WebKit)
package import WebKit

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
    /// rather than racing. The mapping itself (current values rather than the change record,
    /// `isLoading` edges) is ``PageObservation``'s, tested on Linux.
    func startObserving(_ webView: WKWebView) {
        let observation = PageObservation(page: webView, tracker: pageState)
        pageObservation = observation
        observations = KeyValueObservations(observations: [
            webView.observe(\.title, options: []) { [weak observation] _, _ in
                MainActor.assumeIsolated { observation?.titleDidChange() }
            },
            webView.observe(\.estimatedProgress, options: []) { [weak observation] _, _ in
                MainActor.assumeIsolated { observation?.progressDidChange() }
            },
            webView.observe(\.isLoading, options: []) { [weak observation] _, _ in
                MainActor.assumeIsolated { observation?.loadingDidChange() }
            },
        ])
    }

    /// Ends every observation (`NSKeyValueObservation.invalidate()`), on the main actor.
    func stopObserving() {
        pageObservation?.stop()
        for observation in observations.observations {
            observation.invalidate()
        }
        observations = KeyValueObservations(observations: [])
    }
}

/// `WKUserContentController`'s user scripts are what ``UserScriptLedger`` manages.
extension WKUserContentController: UserScriptController {
    /// `WKUserScript.source`.
    package func source(of script: WKUserScript) -> String { script.source }
}

/// `WKWebView`'s KVO-compliant `title`, `url`, `isLoading` and `estimatedProgress` are what
/// ``PageObservation`` reads (the same names and types, main-actor isolated).
extension WKWebView: ObservedPage {}

/// The KVO observations, handed to the main actor by a `deinit` that may run elsewhere.
/// `@unchecked Sendable`: the observations are only touched there (``MainActorHop``).
struct KeyValueObservations: @unchecked Sendable {
    let observations: [NSKeyValueObservation]
}
#endif
