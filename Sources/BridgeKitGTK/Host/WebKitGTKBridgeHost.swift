#if WebKitGTK
public import BridgeKit
import Foundation

/// Connects a `BridgeRouter` to a WebKitGTK web view: the Linux counterpart of the WKWebView
/// adapter, and a thin layer over BridgeKit's own abstractions.
///
/// On ``attach()`` it
/// - injects `WebBridgeShim` into the page world and `WebBridgeRelay` into the isolated script
///   world ``world``, in every frame, at document start;
/// - injects the router's task list right after the shim (`BridgeTaskList/documentStartScript`),
///   so `WebBridge.supports(name)` answers from the page's first script on, and swaps that script
///   whenever a task is registered, replaced or removed (the loaded page gets the new list from
///   the router);
/// - installs BridgeKit's message handler in that world, with a reply path, through a
///   `BridgeAttachment` (weak proxy, never added twice);
/// - connects a `PageChannel` that evaluates reply scripts in the page world
///   (`webkit_web_view_evaluate_javascript`);
/// - reports every committed main-frame load (`load-changed` `WEBKIT_LOAD_COMMITTED`, and a
///   crashed web process) to `BridgeRouter/pageDidCommitNavigation()`. A load that starts but
///   never commits (a 204 or 205 response, a download, `window.stop()`, a navigation the policy
///   ignores) leaves the document and its calls as they are.
///
/// **Origin and frame identity.** WebKitGTK's message signal says nothing about the sender. The
/// handler exists only in the isolated world, where the relay reads `self.origin` (the document's security origin) and
/// `window.top === window` itself: page scripts can neither post to the handler directly nor
/// change what the relay reads. See SECURITY.md for what this does not cover.
///
/// **Ownership.** The host owns the router and the web view. ``close()`` detaches, closes the
/// router (pending calls settle with `unavailable`) and destroys the view; afterwards the view,
/// the proxy and the router can be freed.
///
/// **Page state.** ``page`` (a ``GTKPageObserver``) follows the title, progress, loads and
/// main-frame HTTP status, as a platform-neutral `PageStateTracker`. The host and the observer
/// take the view's callbacks (`onTitleChange`, `onProgressChange`, `onLoadEvent`,
/// `onLoadFailure`, `onPolicyDecision`, `onWebProcessTerminated`): set your own handlers on
/// ``page`` instead.
///
/// Thread: main actor (GTK's thread).
@MainActor
public final class WebKitGTKBridgeHost {
    /// The router calls go to.
    public private(set) var router: BridgeRouter?
    /// The web view.
    public private(set) var webView: GTKWebView?
    /// The isolated script world of the handler and the relay.
    public let world: String
    /// The page's title, progress, loads and load errors.
    public let page: GTKPageObserver
    private var attachment: BridgeAttachment?
    private var registry: GTKMessageHandlerRegistry?
    /// The document-start script carrying the task list, and the revision it carries.
    private var taskListScript: (script: GOpaque, revision: UInt64)?
    /// Called with every protocol message, payload included, in the order they crossed the
    /// bridge: a page's message before the router handles it, a native message before the page
    /// gets it (so a native-to-page call comes before the page's reply to it). For developer
    /// tools and logs (bridgehost); set it before ``attach()``. Called on any thread; keep it short.
    public var onMessage: (@Sendable (GTKBridgeMessage) -> Void)?
    /// ``BridgeRouter/addTaskListObserver(_:)``'s id, while attached.
    private var taskListObserver: Int?
    /// The byte transport's transfers for binary values (issue 26; docs/protocol.md, "Binary
    /// values"): set it to serve the `webbridge-binary:` scheme for this view, before ``attach()``
    /// or later (from then on); the transfers follow the router's commits themselves, and the host
    /// closes them with the view. `nil` (the default, or set later): the scheme is not served for
    /// this view and the page's binary values fail with `unavailable`. A value it replaces is not
    /// closed: close it yourself if you no longer use it.
    public var binaryTransfers: BinaryTransfers? {
        didSet {
            guard attachment != nil, let webView, binaryTransfers !== oldValue else { return }
            if let binaryTransfers {
                GTKBinaryScheme.install(binaryTransfers, on: webView)
            } else {
                GTKBinaryScheme.uninstall(webView)
            }
        }
    }

    /// The weak message-handler proxy installed by ``attach()``, `nil` before it and after
    /// ``close()``. For checks that tearing down frees everything: hold it weakly.
    public var messageHandlerProxy: MessageHandlerProxy? { attachment?.messageHandlerProxy }

    /// Creates a host for `router` in `webView`. Call ``attach()`` before the first load.
    /// - Parameters:
    ///   - router: the router; owned by the host from now on.
    ///   - webView: the view; owned by the host from now on.
    ///   - world: the isolated script world name; default `"bridgekit"`.
    public init(router: BridgeRouter, webView: GTKWebView, world: String = "bridgekit") {
        self.router = router
        self.webView = webView
        self.world = world
        self.page = GTKPageObserver(webView: webView)
    }

    /// Installs the scripts, the message handler, the page channel and the navigation hook.
    /// - Returns: the attachment outcome (`BridgeAttachment/Outcome/alreadyAttached` when called twice).
    /// - Throws: ``GTKWebViewError`` when the view is closed or rejects a script.
    @discardableResult
    public func attach() throws(GTKWebViewError) -> BridgeAttachment.Outcome {
        guard let router, let webView else { throw .closed }
        if let attachment {
            return attachment.attach(to: registry ?? GTKMessageHandlerRegistry(webView: webView, world: world))
        }
        try webView.addUserScript(
            WebBridgeRelay.settingsScript(limits: router.configuration.limits), world: world, frames: .allFrames,
            injectionTime: .documentStart)
        try webView.addUserScript(
            WebBridgeRelay.source, world: world, frames: .allFrames, injectionTime: .documentStart)
        try webView.addUserScript(WebBridgeShim.source, world: nil, frames: .allFrames, injectionTime: .documentStart)
        try injectTaskList(router.taskList)
        taskListObserver = router.addTaskListObserver { [weak self] list in
            // Registering on GTK's thread (the usual case) swaps the script before the next load starts.
            if Thread.isMainThread {
                MainActor.assumeIsolated { try? self?.injectTaskList(list) }
            } else {
                Task { @MainActor in try? self?.injectTaskList(list) }
            }
        }
        // Issue 26 hook: the byte transport for binary values.
        if let binaryTransfers { GTKBinaryScheme.install(binaryTransfers, on: webView) }
        let registry = GTKMessageHandlerRegistry(webView: webView, world: world)
        registry.tap = onMessage
        let attachment = BridgeAttachment(router: router)
        let outcome = attachment.attach(to: registry)
        self.registry = registry
        self.attachment = attachment
        let tap = onMessage
        // Scripts go to the page world, or, bound to the document a notice named, to the relay's
        // world, where the notice's `__webbridgeDeliver` hands them to that document only.
        let evaluate = { @Sendable [weak webView] (script: String, inWorld: String?) async throws -> Void in
            guard let webView else { throw BridgeError.unavailable("The web view was closed.") }
            if let tap, let json = GTKBridgeMessage.payload(ofReceiveScript: script) {
                tap(GTKBridgeMessage(direction: .outbound, json: json))
            }
            // BridgeKit's scripts already end in `;void 0`; this variant passes the script as it
            // is (`evaluateJavaScript` would append to it, copying the whole payload once more).
            _ = try await webView.evaluateJavaScriptReturningJSON(script, inWorld: inWorld)
        }
        router.connect(
            PageChannel(
                evaluate: { script in try await evaluate(script, nil) },
                evaluateForDocument: { [world] script in try await evaluate(script, world) }))
        let observedLoad = webView.onLoadEvent
        webView.onLoadEvent = { [weak self] event in
            // The document changes at commit, not at start: a load may never commit.
            // The binary transfers follow the router's generations by themselves.
            if event == .committed { self?.router?.pageDidCommitNavigation() }
            observedLoad?(event)
        }
        // A new document WebKitGTK reports no commit for (a `javascript:` URL's result replacing
        // the page) still runs document-start scripts: the document notice, posted by a script of
        // the main frame only in the relay's world (which page scripts cannot reach), starts a page
        // generation then too. After a commit it starts one more, before the new document's first
        // message (docs/protocol.md, "Document notice").
        try webView.addUserScript(
            WebBridgeDocumentNotice.source, world: world, frames: .mainFrameOnly, injectionTime: .documentStart)
        try webView.registerScriptMessageHandler(
            name: Self.documentNoticeHandler, world: world, withReply: false, mainFrameOnly: true
        ) { [weak self] message in
            guard let router = self?.router else { return }
            if let notice = DocumentNoticeBody.notice(in: message.bodyJSONText) {
                router.pageDidAnnounceDocument(notice.document, origin: notice.origin)
            } else {
                router.pageDidCommitNavigation()
            }
        }
        webView.onWebProcessTerminated = { [weak self] reason in
            self?.router?.pageDidCommitNavigation()
            self?.page.tracker.send(.loadFailed(.webContentProcessTerminated(reason: reason)))
        }
        return outcome
    }

    /// The handler `js/webbridge-document.js` posts its notice to, in the relay's world.
    static let documentNoticeHandler = WebBridgeDocumentNotice.handlerName

    /// Makes `list` the task list documents get at document start, unless a newer one is there.
    private func injectTaskList(_ list: BridgeTaskList) throws(GTKWebViewError) {
        guard let webView else { return }
        if let current = taskListScript, current.revision > list.revision { return }
        let script = try webView.replaceUserScript(
            taskListScript?.script, with: list.documentStartScript, frames: .allFrames)
        taskListScript = (script, list.revision)
    }

    /// Detaches the handler, closes the router, and destroys the web view. Idempotent.
    public func close() async {
        if let taskListObserver { router?.removeTaskListObserver(taskListObserver) }
        taskListObserver = nil
        if let taskListScript { webView?.removeUserScript(taskListScript.script) }
        taskListScript = nil
        attachment?.detach()
        attachment = nil
        registry = nil
        binaryTransfers?.close()
        if let webView { GTKBinaryScheme.uninstall(webView) }
        let router = self.router
        self.router = nil
        await router?.close()
        page.stop()
        webView?.onWebProcessTerminated = nil
        webView?.close()
        webView = nil
    }
}
#endif
