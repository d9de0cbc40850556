#if canImport(FoundationNetworking)
package import FoundationNetworking
#else
package import Foundation
#endif

/// The navigation logic of the WebKit adapter, platform-neutral so that it is unit-tested on
/// Linux: which navigation events start a new page generation
/// (``BridgeRouter/pageDidCommitNavigation()``: the old document's pending calls settle with
/// `navigated`) and which become page errors in a ``PageStateTracker``. The Apple glue
/// (`WebViewBridge`'s navigation helpers and its document-notice handler) only reads WebKit's
/// objects and calls these.
///
/// - A committed navigation or a document notice from the attached web view's main frame starts
///   a generation; a notice from a subframe or from another web view sharing the content
///   controller does not.
/// - A response or a failure is classified by the ``NavigationResponsePolicy``; a response's
///   error is recorded when its navigation commits (``HeldResponseError``).
/// - A terminated web content process starts a generation and records the error.
/// - After ``detach()`` nothing happens.
///
/// Thread: main actor (WebKit's delegate calls arrive there).
@MainActor
package final class PageGenerations {
    private weak var router: BridgeRouter?
    private let tracker: PageStateTracker
    private let policy: NavigationResponsePolicy
    /// Whether events still have effects.
    package private(set) var isAttached = true
    /// The error of the latest main-frame response, until its navigation commits.
    private var heldResponseError = HeldResponseError()

    /// Creates the logic for `router` (held weakly) and `tracker`.
    package init(router: BridgeRouter, tracker: PageStateTracker, policy: NavigationResponsePolicy) {
        self.router = router
        self.tracker = tracker
        self.policy = policy
    }

    /// Later events are ignored.
    package func detach() {
        isAttached = false
    }

    /// `webView(_:didCommit:)`: a new document.
    package func navigationCommitted() {
        guard isAttached else { return }
        router?.pageDidCommitNavigation()
        record(heldResponseError.commit())
    }

    /// A document notice (`js/webbridge-document.js`): names the document on screen and its
    /// origin (``BridgeRouter/pageDidAnnounceDocument(_:origin:)``), which starts a new generation when it is
    /// another document; a notice without a readable id starts one in any case. A notice of
    /// another document than the one named (or of the first) also tells that a navigation
    /// committed: a held response error is recorded then.
    /// - Parameters:
    ///   - isMainFrame: whether the notice came from the main frame.
    ///   - isFromAttachedWebView: whether its web view is the attached one.
    ///   - body: the notice's text (``DocumentNoticeBody``), `nil` when it was not a string.
    /// - Returns: whether a new page generation started.
    @discardableResult
    package func documentNotice(isMainFrame: Bool, isFromAttachedWebView: Bool, body: String? = nil) -> Bool {
        guard isAttached, isMainFrame, isFromAttachedWebView, let router else { return false }
        let before = router.pageGeneration
        let notice = body.flatMap(DocumentNoticeBody.notice(in:))
        let committed = notice == nil || notice?.document != router.announcedDocument
        if let notice {
            router.pageDidAnnounceDocument(notice.document, origin: notice.origin)
        } else {
            router.pageDidCommitNavigation()
        }
        if committed { record(heldResponseError.commit()) }
        return router.pageGeneration != before
    }

    /// A navigation response: classified; a main-frame error is recorded when its navigation
    /// commits (``HeldResponseError``).
    /// - Returns: the page error, or `nil`.
    @discardableResult
    package func responseReceived(_ response: URLResponse, isMainFrame: Bool) -> PageLoadError? {
        let error = policy.classifyResponse(response, isMainFrame: isMainFrame)
        if isMainFrame { heldResponseError.responseReceived(error) }
        return error
    }

    /// A failed load (provisional or committed): classified (cancellations are not errors), and
    /// recorded when it is an error. A held response error is dropped: its navigation did not
    /// commit, or its document failed later and this error says so.
    /// - Returns: the page error, or `nil`.
    @discardableResult
    package func loadFailed(_ error: any Error) -> PageLoadError? {
        heldResponseError.drop()
        return record(policy.classifyFailure(error))
    }

    /// The web content process ended: a new generation, and the error recorded.
    package func webContentProcessTerminated() {
        guard isAttached else { return }
        router?.pageDidCommitNavigation()
        tracker.send(.loadFailed(.webContentProcessTerminated(reason: nil)))
    }

    @discardableResult
    private func record(_ error: PageLoadError?) -> PageLoadError? {
        if let error, isAttached { tracker.send(.loadFailed(error)) }
        return error
    }
}
