#if WebKitGTK
import BridgeKit
import CWebKitGTK

/// A WebKitGTK web view in an offscreen GTK window, with a thin Swift API: script message
/// handlers (in named script worlds, with reply), user scripts, JavaScript evaluation, loading,
/// load/title/progress/policy callbacks and the cookie jar. Independent of BridgeKit's router.
///
/// The API is main-actor; the WebKit objects live on the GTK thread (see ``GLibMainLoop`` and
/// `GTKThread`): calls hop there and wait, and WebKit's signals come back as main-actor tasks,
/// in order. So callbacks run shortly after the event, never inside a call of this API.
///
/// Owns (and frees in ``close()``): the `GtkOffscreenWindow`, the `WebKitWebView`, its
/// `WebKitUserContentManager` and `WebKitWebContext`. WebKit reaches this object only through weak
/// links, so dropping the last Swift reference closes the view as well. After ``close()`` no callback
/// runs again, async calls in flight throw ``GTKWebViewError/closed`` and new calls throw it too.
/// Works headless (offscreen window; run under `xvfb-run -a`).
@MainActor
public final class GTKWebView {
    /// The configuration the view was created with.
    public let configuration: GTKWebViewConfiguration
    /// Tells when WebKit's view object has been finalized (for tests of ``close()``).
    public let finalization: GTKFinalizationObserver
    /// The cookie jar of this view's web context.
    public let cookies: GTKCookieStore
    /// True after ``close()``.
    public private(set) var isClosed = false

    /// Called with the new document title (`notify::title`); nil or "" while there is none.
    /// The title can arrive after ``GTKLoadEvent/finished``.
    public var onTitleChange: (@MainActor (String?) -> Void)?
    /// Called with the estimated load progress, 0.0 to 1.0 (`notify::estimated-load-progress`).
    public var onProgressChange: (@MainActor (Double) -> Void)?
    /// Called for each load step of the main frame (`load-changed`).
    public var onLoadEvent: (@MainActor (GTKLoadEvent) -> Void)?
    /// Called when a load fails (`load-failed`); ``GTKLoadEvent/finished`` follows.
    public var onLoadFailure: (@MainActor (GTKLoadFailure) -> Void)?
    /// When true, WebKit does not load its own error page after a failed load (the `load-failed`
    /// handler returns TRUE). Default false.
    public var suppressesErrorPages = false {
        didSet { core.suppressesErrorPages.store(suppressesErrorPages, ordering: .releasing) }
    }
    /// Decides navigations, new-window requests and responses (`decide-policy`); nil lets WebKit
    /// decide by itself. While set, WebKit waits for the verdict (the decision is taken
    /// asynchronously); with ``GTKPolicyVerdict/deferred`` the handler keeps the
    /// ``GTKPolicyDecision`` and decides later.
    public var onPolicyDecision: (@MainActor (GTKPolicyRequest, GTKPolicyDecision) -> GTKPolicyVerdict)? {
        didSet { core.hasPolicyHandler.store(onPolicyDecision != nil, ordering: .releasing) }
    }
    /// Called when the web process ends unexpectedly (`web-process-terminated`), with the reason
    /// ("crashed", "exceeded-memory-limit", "terminated-by-api").
    public var onWebProcessTerminated: (@MainActor (String) -> Void)?

    let core: GTKWebViewCore
    let running = GLibRunningOperations()
    var messageHandlers: [String: (world: String?, handler: @MainActor (GTKScriptMessage) -> Void)] = [:]

    /// Creates the view, applies `configuration` (user agent, settings) before anything can load,
    /// puts the view into a shown offscreen window and connects its signals. Starts GTK through
    /// ``GLibMainLoop/start()`` when needed.
    /// - Throws: ``GTKWebViewError/displayUnavailable`` without a display;
    ///   ``GTKWebViewError/invalidArgument(_:)`` when the application name and version (WebKit
    ///   appends `name/version` to its user agent) are not a `User-Agent` value
    ///   (`UserAgent.isValidFieldValue(_:)`, RFC 9110 section 10.1.5): WebKit would ignore them
    ///   and log a critical warning, and no request would carry the app's token.
    public init(configuration: GTKWebViewConfiguration = GTKWebViewConfiguration()) throws(GTKWebViewError) {
        do {
            try GLibMainLoop.shared.start()
        } catch {
            throw .displayUnavailable
        }
        if let product = configuration.appendedProduct {
            let token = product.version.map { product.name + "/" + $0 } ?? product.name
            guard isCStringSafe(token), UserAgent.isValidFieldValue(token) else {
                throw .invalidArgument(
                    "application name and version \"\(token)\" are not a User-Agent product (RFC 9110 section 10.1.5)")
            }
        } else if let version = configuration.applicationVersion, !isCStringSafe(version) {
            throw .invalidArgument("application version contains NUL")
        }
        let made = GTKThread.perform { GTKWebViewCore.make(configuration) }
        let core = try made.get()
        self.configuration = configuration
        self.core = core
        self.finalization = GTKThread.perform { GTKFinalizationObserver(observing: gCast(gRaw(core.webView))) }
        self.cookies = GTKCookieStore(core: core)
        core.reference.set(self)
        GTKThread.perform { core.connectViewSignals() }
        if configuration.writesConsoleToStandardOutput { try GTKConsoleOutput.install(on: self) }
    }

    /// Closes the view: ends its running asynchronous calls (scripts, cookies) with ``GTKWebViewError/closed``, and on the GTK thread
    /// disconnects every signal handler, unregisters script message handlers, removes user scripts,
    /// destroys the window and view and drops the manager and context. Idempotent. WebKit finalizes
    /// the view once no asynchronous call of its own still holds it (see ``finalization``).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        messageHandlers.removeAll()
        running.failAll(.closed)
        cookies.invalidate()
        let core = self.core
        GTKThread.perform { core.close() }
    }

    isolated deinit {
        close()
    }

    /// Delivers one event from the GTK thread (dropped after close).
    func handle(_ event: GTKWebViewEvent) {
        if case .scriptMessage(_, let message) = event {
            // It left the queue (what the handler keeps, the router counts against its own budget).
            let bytes = message.queuedBytes
            let share = message.inboundShare
            core.inbound.withLock { $0.handled(bytes: bytes, share: share) }
        }
        guard !isClosed else { return }
        switch event {
        case .title(let title): onTitleChange?(title)
        case .progress(let progress): onProgressChange?(progress)
        case .load(let load): onLoadEvent?(load)
        case .loadFailure(let failure): onLoadFailure?(failure)
        case .webProcessTerminated(let reason): onWebProcessTerminated?(reason)
        case .scriptMessage(let name, let message): messageHandlers[name]?.handler(message)
        case .policy(let request, let decision):
            guard let handler = onPolicyDecision else {
                decision.useDefault()
                return
            }
            switch handler(request, decision) {
            case .useDefault: decision.useDefault()
            case .use: decision.use()
            case .ignore: decision.ignore()
            case .deferred: break  // the handler keeps `decision`; dropped undecided, it ignores
            }
        }
    }

    // MARK: - Loading

    /// Starts loading `uri` (`webkit_web_view_load_uri`).
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL.
    public func load(uri: String) throws(GTKWebViewError) {
        try checkOpen()
        guard isCStringSafe(uri) else { throw .invalidArgument("uri contains NUL") }
        let core = self.core
        GTKThread.perform { webkit_web_view_load_uri(core.webView, uri) }
    }

    /// Loads `html` as a document whose URL is `baseURI` (`webkit_web_view_load_html`); the base URI
    /// is the document's origin, so it decides what the page may reach. nil means "about:blank".
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL.
    public func loadHTML(_ html: String, baseURI: String?) throws(GTKWebViewError) {
        try checkOpen()
        guard isCStringSafe(html), baseURI.map(isCStringSafe) ?? true else {
            throw .invalidArgument("html or baseURI contains NUL")
        }
        let core = self.core
        GTKThread.perform { webkit_web_view_load_html(core.webView, html, baseURI) }
    }

    /// Reloads the current document (`webkit_web_view_reload`); no effect after close.
    public func reload() {
        withOpenCore { webkit_web_view_reload($0.webView) }
    }

    /// Stops the current load (`webkit_web_view_stop_loading`); no effect after close.
    public func stopLoading() {
        withOpenCore { webkit_web_view_stop_loading($0.webView) }
    }

    /// The document title, nil when there is none or after close.
    public var title: String? {
        withOpenCore { gString(webkit_web_view_get_title($0.webView)) } ?? nil
    }

    /// The estimated load progress, 0.0 to 1.0 (0 after close).
    public var estimatedProgress: Double {
        withOpenCore { webkit_web_view_get_estimated_load_progress($0.webView) } ?? 0
    }

    /// The current URI (the active one while loading), nil when none or after close.
    public var uri: String? {
        withOpenCore { gString(webkit_web_view_get_uri($0.webView)) } ?? nil
    }

    /// True while a load is in progress.
    public var isLoading: Bool {
        withOpenCore { webkit_web_view_is_loading($0.webView) != 0 } ?? false
    }

    /// The user agent WebKit sends (`webkit_settings_get_user_agent`), nil after close.
    public var userAgent: String? {
        withOpenCore { gString(webkit_settings_get_user_agent(webkit_web_view_get_settings($0.webView))) } ?? nil
    }

    func checkOpen() throws(GTKWebViewError) {
        if isClosed { throw .closed }
    }

    /// Runs `body` with the core on the GTK thread and returns its result; nil after close.
    @discardableResult
    func withOpenCore<T>(_ body: @Sendable (GTKWebViewCore) -> T) -> T? {
        guard !isClosed else { return nil }
        let core = self.core
        return GTKThread.perform { body(core) }
    }
}
#endif
