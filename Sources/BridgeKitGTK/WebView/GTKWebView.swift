#if WebKitGTK
import CWebKitGTK

/// A WebKitGTK web view in an offscreen GTK window, with a thin Swift API: script message
/// handlers (in named script worlds, with reply), user scripts, JavaScript evaluation, loading,
/// load/title/progress/policy callbacks and the cookie jar. Independent of BridgeKit's router.
///
/// Owns (and frees in ``close()``): the `GtkOffscreenWindow`, the `WebKitWebView`, its
/// `WebKitUserContentManager` and its `WebKitWebContext`. Signal handlers reach this object only
/// through weak links, so dropping the last Swift reference closes the view as well.
/// After ``close()`` no callback fires again, async calls in flight throw ``GTKWebViewError/closed``
/// and new calls throw it too. Works headless (offscreen window; run under `xvfb-run -a`).
///
/// Thread: main actor (see ``GLibMainLoop`` for how GLib runs alongside it).
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
    public var suppressesErrorPages = false
    /// Decides navigations, new-window requests and responses (`decide-policy`); nil lets WebKit
    /// use its defaults. The ``GTKPolicyDecision`` is only needed for ``GTKPolicyVerdict/deferred``.
    public var onPolicyDecision: (@MainActor (GTKPolicyRequest, GTKPolicyDecision) -> GTKPolicyVerdict)?
    /// Called when the web process ends unexpectedly (`web-process-terminated`), with the reason
    /// ("crashed", "exceeded-memory-limit", "terminated-by-api").
    public var onWebProcessTerminated: (@MainActor (String) -> Void)?

    let window: UnsafeMutablePointer<GtkWidget>
    let webView: UnsafeMutablePointer<WebKitWebView>
    let contentManager: UnsafeMutablePointer<WebKitUserContentManager>
    let context: UnsafeMutablePointer<WebKitWebContext>
    let signals = SignalConnections()
    let pending = GLibPendingCalls()
    var messageHandlers: [String: ScriptMessageHandlerEntry] = [:]

    /// Creates the view, applies `configuration` (user agent, settings) before anything can load,
    /// puts the view into a shown offscreen window and connects its signals.
    /// Starts GTK through ``GLibMainLoop/start()`` when needed.
    /// - Throws: ``GTKWebViewError/displayUnavailable`` without a display;
    ///   ``GTKWebViewError/invalidArgument(_:)`` for a NUL in the application name or version.
    public init(configuration: GTKWebViewConfiguration = GTKWebViewConfiguration()) throws(GTKWebViewError) {
        do {
            try GLibMainLoop.shared.start()
        } catch {
            throw .displayUnavailable
        }
        for text in [configuration.applicationName, configuration.applicationVersion].compactMap({ $0 })
        where !isCStringSafe(text) {
            throw .invalidArgument("application name or version contains NUL")
        }
        let context: UnsafeMutablePointer<WebKitWebContext>? =
            switch configuration.dataStore {
            case .ephemeral: webkit_web_context_new_ephemeral()
            case .shared: webkit_web_context_get_default()
            }
        if configuration.dataStore == .shared, let context {
            g_object_ref(gRaw(context))  // the default context is borrowed; close() unrefs
        }
        guard let context, let manager = webkit_user_content_manager_new() else {
            throw .displayUnavailable
        }
        guard let view = bk_web_view_new(context, manager), let window = gtk_offscreen_window_new(),
            let cookieManager = webkit_web_context_get_cookie_manager(context)
        else {
            g_object_unref(gRaw(manager))
            g_object_unref(gRaw(context))
            throw .displayUnavailable
        }
        g_object_ref_sink(gRaw(view))
        let settings = webkit_web_view_get_settings(view)
        if let name = configuration.applicationName {
            webkit_settings_set_user_agent_with_application_details(settings, name, configuration.applicationVersion)
        }
        webkit_settings_set_enable_developer_extras(settings, configuration.developerExtrasEnabled ? 1 : 0)
        gtk_window_set_default_size(
            gCast(gRaw(window)), gint(clamping: configuration.windowSize.width),
            gint(clamping: configuration.windowSize.height))
        gtk_container_add(gCast(gRaw(window)), gCast(gRaw(view)))
        gtk_widget_show_all(window)

        self.configuration = configuration
        self.context = context
        self.contentManager = manager
        self.webView = view
        self.window = window
        self.finalization = GTKFinalizationObserver(observing: gCast(gRaw(view)))
        self.cookies = GTKCookieStore(manager: cookieManager)
        connectViewSignals()
    }

    /// Closes the view: settles pending calls with ``GTKWebViewError/closed``, disconnects every
    /// signal handler, unregisters script message handlers, removes user scripts, destroys the
    /// window and view and drops the manager and context. Idempotent. WebKit finalizes the view once
    /// no asynchronous call of its own still holds it (see ``finalization``).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        pending.failAll(.closed)
        cookies.invalidate()
        signals.disconnectAll()
        for (name, entry) in messageHandlers {
            unregisterInWebKit(name: name, world: entry.world)
        }
        messageHandlers.removeAll()
        webkit_user_content_manager_remove_all_scripts(contentManager)
        webkit_web_view_stop_loading(webView)
        gtk_widget_destroy(window)
        g_object_unref(gRaw(webView))
        g_object_unref(gRaw(contentManager))
        g_object_unref(gRaw(context))
    }

    isolated deinit {
        close()
    }

    // MARK: - Loading

    /// Starts loading `uri` (`webkit_web_view_load_uri`).
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL.
    public func load(uri: String) throws(GTKWebViewError) {
        try checkOpen()
        guard isCStringSafe(uri) else { throw .invalidArgument("uri contains NUL") }
        webkit_web_view_load_uri(webView, uri)
    }

    /// Loads `html` as a document whose URL is `baseURI` (`webkit_web_view_load_html`); the base URI
    /// is the document's origin, so it decides what the page may reach. nil means "about:blank".
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL.
    public func loadHTML(_ html: String, baseURI: String?) throws(GTKWebViewError) {
        try checkOpen()
        guard isCStringSafe(html), baseURI.map(isCStringSafe) ?? true else {
            throw .invalidArgument("html or baseURI contains NUL")
        }
        webkit_web_view_load_html(webView, html, baseURI)
    }

    /// Reloads the current document (`webkit_web_view_reload`); no effect after close.
    public func reload() {
        guard !isClosed else { return }
        webkit_web_view_reload(webView)
    }

    /// Stops the current load (`webkit_web_view_stop_loading`); no effect after close.
    public func stopLoading() {
        guard !isClosed else { return }
        webkit_web_view_stop_loading(webView)
    }

    /// The document title, nil when there is none or after close.
    public var title: String? {
        isClosed ? nil : gString(webkit_web_view_get_title(webView))
    }

    /// The estimated load progress, 0.0 to 1.0 (0 after close).
    public var estimatedProgress: Double {
        isClosed ? 0 : webkit_web_view_get_estimated_load_progress(webView)
    }

    /// The current URI (the active one while loading), nil when none or after close.
    public var uri: String? {
        isClosed ? nil : gString(webkit_web_view_get_uri(webView))
    }

    /// True while a load is in progress.
    public var isLoading: Bool {
        isClosed ? false : webkit_web_view_is_loading(webView) != 0
    }

    /// The user agent WebKit sends (`webkit_settings_get_user_agent`), nil after close.
    public var userAgent: String? {
        isClosed ? nil : gString(webkit_settings_get_user_agent(webkit_web_view_get_settings(webView)))
    }

    func checkOpen() throws(GTKWebViewError) {
        if isClosed { throw .closed }
    }
}
#endif
