#if canImport(WebKit)
public import WebKit

/// Connects a ``BridgeRouter`` to a `WKWebView`: one call to attach, one to detach.
///
/// ```swift
/// let bridge = try WebViewBridge.attach(router: router, to: webView)   // before the first load
/// webView.load(URLRequest(url: startURL))
/// …
/// bridge.detach()
/// ```
///
/// ``attach(router:to:configuration:)``:
/// 1. installs a `WKScriptMessageHandlerWithReply` named `webbridge` through
///    ``WebKitMessageHandlerRegistry`` and ``BridgeAttachment`` (the controller retains the
///    handler, the handler's proxy holds the router weakly: no retain cycle, R23; never a
///    duplicate add, R24);
/// 2. adds the shim (``WebBridgeShim/source``) as a `WKUserScript` at document start, main
///    frame only by default, in the configured content world (default `.page`), and, with the
///    default ``NavigationSignal/documentNotice``, the document notice
///    (``WebBridgeDocumentNotice/source``, main frame only) with its own handler, both in a content
///    world of their own that page scripts cannot reach. With the shim it also adds the
///    router's task list (``BridgeTaskList/documentStartScript``, same frames and world as the
///    shim), so `WebBridge.supports(name)` answers from the page's first script on, and swaps
///    that script whenever a task is registered, replaced or removed (the loaded page gets the
///    new list from the router). User scripts apply to documents loaded *after* this, so attach
///    before the first load;
/// 3. connects the router's ``PageChannel`` (``WebKitScriptEvaluator``: the completion form of
///    `evaluateJavaScript`, web view held weakly);
/// 4. starts observing `title`, `estimatedProgress` and `isLoading` by KVO for ``pageState``;
///    page generations follow committed documents (see ``NavigationSignal``).
///
/// It never sets `navigationDelegate` or `UIDelegate`: the app keeps them and calls the
/// navigation helpers (``navigationCommitted()``, ``navigationResponseReceived(_:)``,
/// ``provisionalNavigationFailed(_:)``, ``navigationFailed(_:)``,
/// ``webContentProcessTerminated()``) from its own delegate.
///
/// ``detach()`` undoes all of it. Dropping the last reference without detaching still ends
/// KVO and removes the handler on the main actor (synchronously when the bridge is released on
/// the main thread, so a new bridge can attach in the same turn), ends the page event streams,
/// but leaves its user scripts in the controller: call ``detach()``.
///
/// One bridge per web view: web views created from one `WKWebViewConfiguration` share its
/// `WKUserContentController`, and a second bridge on the same controller and content world
/// throws ``WebViewBridgeError/handlerNameInUse(_:)``. Messages that reach this bridge's handler
/// from another web view (one that shares the controller but has no bridge) are answered with
/// `unavailable` and never reach the router, so no reply goes into the wrong web view. Give each
/// web view its own configuration (or its own `WKUserContentController`) to bridge several.
///
/// Thread: main actor, like WebKit.
@MainActor
public final class WebViewBridge {
    /// The router this bridge serves. Held strongly: the bridge is the app's handle to it.
    public let router: BridgeRouter
    /// The settings the bridge was attached with.
    public let configuration: Configuration
    /// The page's title, progress and load state, with a stream of changes.
    public let pageState: PageStateTracker
    /// The web view, while it lives (held weakly).
    public private(set) weak var webView: WKWebView?

    private let attachment: BridgeAttachment
    private let evaluator: WebKitScriptEvaluator
    private weak var userContentController: WKUserContentController?
    /// The user scripts this bridge added (the shim, the task list, the document notice), removed
    /// by ``detach()`` (``UserScriptLedger``, tested on Linux).
    private let scripts: UserScriptLedger<WKUserContentController>
    /// The document-notice handler, with ``NavigationSignal/documentNotice``.
    private var documentNotices: WebKitDocumentNoticeHandler?
    /// Evaluates the scripts bound to a document in the notice's world, with ``NavigationSignal/documentNotice``.
    private var documentEvaluator: WebKitScriptEvaluator?
    /// ``BridgeRouter/addTaskListObserver(_:)``'s id, while attached with the shim.
    private var taskListObserver: Int?
    /// The KVO observations (see `WebViewBridge+Observation.swift`).
    var observations = KeyValueObservations(observations: [])
    /// The KVO-to-page-event mapping.
    var pageObservation: PageObservation?
    /// Page generations and page errors from navigation events (``PageGenerations``, tested on Linux).
    let generations: PageGenerations
    /// Whether ``detach()`` has not been called yet.
    public private(set) var isAttached = true

    private init(router: BridgeRouter, webView: WKWebView, configuration: Configuration, attachment: BridgeAttachment) {
        self.router = router
        self.configuration = configuration
        self.pageState = PageStateTracker(bufferLimit: configuration.pageEventBufferLimit)
        self.webView = webView
        self.attachment = attachment
        self.evaluator = WebKitScriptEvaluator(webView: webView, contentWorld: configuration.contentWorld)
        self.userContentController = webView.configuration.userContentController
        self.scripts = UserScriptLedger(controller: webView.configuration.userContentController)
        self.generations = PageGenerations(router: router, tracker: pageState, policy: configuration.responsePolicy)
    }

    /// Attaches `router` to `webView`. Call it before the first load (the shim is a user
    /// script, which WebKit injects into documents loaded afterwards).
    ///
    /// - Parameters:
    ///   - router: the router; it should serve this web view only.
    ///   - webView: the web view.
    ///   - configuration: content world, shim, navigation signal, response policy.
    /// - Returns: the bridge; keep it (for example in the view controller) and call
    ///   ``detach()`` when done.
    /// - Throws: ``WebViewBridgeError/handlerNameInUse(_:)`` when another bridge is attached
    ///   to the same web view's controller in the same content world.
    public static func attach(
        router: BridgeRouter, to webView: WKWebView,
        configuration: Configuration = Configuration()
    ) throws(WebViewBridgeError) -> WebViewBridge {
        let controller = webView.configuration.userContentController
        let registry = WebKitMessageHandlerRegistry.registry(for: controller, contentWorld: configuration.contentWorld)
        let attachment = BridgeAttachment(router: router)
        if case .nameInUse(let name) = attachment.attach(to: registry) {
            throw WebViewBridgeError.handlerNameInUse(name)
        }
        // Messages from other web views sharing this controller are answered, not routed.
        registry.attachedWebView = webView
        let bridge = WebViewBridge(
            router: router, webView: webView, configuration: configuration, attachment: attachment)
        if configuration.installsShim {
            bridge.addUserScript(WebBridgeShim.source, mainFrameOnly: configuration.shimInMainFrameOnly)
            bridge.injectTaskList(router.taskList)
            bridge.taskListObserver = router.addTaskListObserver { [weak bridge] list in
                // Registering on the main thread (the usual case) swaps the script before the next load starts.
                if Thread.isMainThread {
                    MainActor.assumeIsolated { bridge?.injectTaskList(list) }
                } else {
                    Task { @MainActor in bridge?.injectTaskList(list) }
                }
            }
        }
        if configuration.navigationSignal == .documentNotice {
            // In a content world of its own, unreachable for page scripts: posts a notice when each
            // main-frame document starts (js/webbridge-document.js).
            let notices = WebKitDocumentNoticeHandler(generations: bridge.generations, webView: webView)
            bridge.scripts.adopt(notices.install(in: controller))
            bridge.documentNotices = notices
            // Scripts of a document the notice named go to the notice's world, bound to it.
            let documents = WebKitScriptEvaluator(
                webView: webView, contentWorld: WebKitDocumentNoticeHandler.contentWorld)
            bridge.documentEvaluator = documents
            router.connect(bridge.evaluator.channel(bindingDocumentsWith: documents))
        } else {
            router.connect(bridge.evaluator.channel)
        }
        bridge.startObserving(webView)
        return bridge
    }

    /// Detaches: removes the message handler and the user scripts it added, disconnects the page channel
    /// (later scripts throw `unavailable`), stops KVO, ends the ``pageState`` streams, and
    /// starts a new page generation so that pending calls settle (`navigated`) and their tasks
    /// are cancelled — no page can receive their replies any more. The router stays usable
    /// (attach it again, or `close()` it). Idempotent.
    public func detach() {
        guard isAttached else { return }
        isAttached = false
        generations.detach()
        stopObserving()
        attachment.detach()
        if let documentNotices, let controller = userContentController { documentNotices.uninstall(from: controller) }
        documentNotices = nil
        if let taskListObserver { router.removeTaskListObserver(taskListObserver) }
        taskListObserver = nil
        scripts.removeAll()
        evaluator.disconnect()
        documentEvaluator?.disconnect()
        router.pageDidCommitNavigation()
        pageState.finish()
    }

    /// Adds a document-start user script in the configured content world and remembers it.
    private func addUserScript(_ source: String, mainFrameOnly: Bool) {
        scripts.add(makeUserScript(source, mainFrameOnly: mainFrameOnly))
    }

    private func makeUserScript(_ source: String, mainFrameOnly: Bool) -> WKUserScript {
        WKUserScript(
            source: source, injectionTime: .atDocumentStart, forMainFrameOnly: mainFrameOnly,
            in: configuration.contentWorld)
    }

    /// Makes `list` the task list documents get at document start (replacing the script of an
    /// older list), unless a newer one is there or the bridge was detached.
    private func injectTaskList(_ list: BridgeTaskList) {
        guard isAttached else { return }
        scripts.replaceTaskList(
            with: makeUserScript(list.documentStartScript, mainFrameOnly: configuration.shimInMainFrameOnly),
            revision: list.revision)
    }

    deinit {
        // Nonisolated deinit. KVO observations end on the main actor (at once when the bridge is
        // released on the main thread, the usual case); BridgeAttachment removes the handler the
        // same way in its own deinit, so attaching again in the same main-actor turn works.
        let observations = observations
        MainActorHop.run {
            for observation in observations.observations {
                observation.invalidate()
            }
        }
        pageState.finish()
    }
}
#endif
