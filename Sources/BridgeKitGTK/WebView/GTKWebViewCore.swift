#if WebKitGTK
import CWebKitGTK
import Synchronization

/// The GTK-thread half of a ``GTKWebView``: owns the offscreen window, the `WebKitWebView`, its
/// user content manager and web context, and the signal connections. Every member is used only on
/// the GTK thread (through ``GTKThread`` hops), except the atomics, which mirror main-actor settings
/// that signal handlers must answer synchronously.
final class GTKWebViewCore: @unchecked Sendable {
    /// One registered script message handler, as WebKit knows it.
    struct HandlerRegistration {
        let world: String?
        let withReply: Bool
        let signalID: gulong
        /// Only the main frame posts to it (a handler in an isolated world that only a
        /// main-frame-only user script of that world uses): its messages count against the main
        /// frame's share of the inbound budget (``InboundBudget``).
        var mainFrameOnly = false
        /// The relay's handler: its messages carry the relay's frame stamp (``RelayEnvelope``), read
        /// for the inbound budget's share (``GTKWebViewCore/inboundShare(of:to:)``). No other
        /// handler's text is read as a stamp, whatever world it is in (attack 21: console events
        /// starting "main " counted as the main frame's).
        var readsRelayStamp = false
        /// For the relay's handler: whether the router admits a sender (origin as the relay
        /// stamped it, main frame or not); a large body from a sender it does not admit is read
        /// only as far as its head (``JSCValueText/unadmittedHead(of:admits:)``). GTK thread.
        var admitsSender: (@Sendable (_ origin: String, _ isMainFrame: Bool) -> Bool)?
    }

    let window: UnsafeMutablePointer<GtkWidget>
    let webView: UnsafeMutablePointer<WebKitWebView>
    let contentManager: UnsafeMutablePointer<WebKitUserContentManager>
    let context: UnsafeMutablePointer<WebKitWebContext>
    let cookieManager: UnsafeMutablePointer<WebKitCookieManager>
    let signals = SignalConnections()
    /// Registered handler names (GTK thread).
    var handlers: [String: HandlerRegistration] = [:]
    /// True after ``close()`` (GTK thread).
    private(set) var isClosed = false
    /// True once the view has left its offscreen window (GTK thread).
    var isDetached = false
    /// Where events go.
    let reference = GTKViewReference()

    /// Mirrors ``GTKWebView/suppressesErrorPages`` for the `load-failed` handler.
    let suppressesErrorPages = Atomic<Bool>(false)
    /// Mirrors whether ``GTKWebView/onPolicyDecision`` is set (the `decide-policy` handler must
    /// answer at once whether it takes the decision).
    let hasPolicyHandler = Atomic<Bool>(false)
    /// The script messages read and not yet handled (``InboundBudget``): counted on the GTK thread,
    /// given back on the main actor.
    let inbound = Mutex(InboundBudget())

    private init(
        window: UnsafeMutablePointer<GtkWidget>, webView: UnsafeMutablePointer<WebKitWebView>,
        contentManager: UnsafeMutablePointer<WebKitUserContentManager>, context: UnsafeMutablePointer<WebKitWebContext>,
        cookieManager: UnsafeMutablePointer<WebKitCookieManager>
    ) {
        self.window = window
        self.webView = webView
        self.contentManager = contentManager
        self.context = context
        self.cookieManager = cookieManager
    }

    /// Creates the view (GTK thread): web context, user content manager, `WebKitWebView` with the
    /// configuration's settings applied, shown in an offscreen window. Signals are connected later
    /// by ``connectViewSignals()``, once the Swift view exists.
    static func make(_ configuration: GTKWebViewConfiguration) -> Result<GTKWebViewCore, GTKWebViewError> {
        let context: UnsafeMutablePointer<WebKitWebContext>?
        switch configuration.dataStore {
        case .ephemeral:
            context = webkit_web_context_new_ephemeral()
        case .shared:
            context = webkit_web_context_get_default()
            if let context { g_object_ref(gRaw(context)) }  // borrowed default context; close() unrefs
        }
        guard let context, let manager = webkit_user_content_manager_new() else {
            return .failure(.displayUnavailable)
        }
        // Before the view exists, so the view's page has the scheme's handler from the start.
        if let assets = configuration.assetScheme { GTKAssetSchemeHandler.register(assets, on: context) }
        guard let view = bk_web_view_new(context, manager), let window = gtk_offscreen_window_new(),
            let cookieManager = webkit_web_context_get_cookie_manager(context)
        else {
            g_object_unref(gRaw(manager))
            g_object_unref(gRaw(context))
            return .failure(.displayUnavailable)
        }
        g_object_ref_sink(gRaw(view))
        if let assets = configuration.assetScheme { GTKAssetSchemeHandler.attach(assets, to: view) }
        g_object_ref(gRaw(cookieManager))
        let settings = webkit_web_view_get_settings(view)
        if let (name, version) = configuration.appendedProduct {
            if let version {
                webkit_settings_set_user_agent_with_application_details(settings, name, version)
            } else {
                // With no version WebKitGTK appends `name/<its own version>` (a product and a comment
                // would then be refused whole): the name alone is appended here instead.
                let standard = gString(webkit_settings_get_user_agent(settings)) ?? ""
                webkit_settings_set_user_agent(settings, standard.isEmpty ? name : standard + " " + name)
            }
        }
        webkit_settings_set_enable_developer_extras(settings, configuration.developerExtrasEnabled ? 1 : 0)
        gtk_window_set_default_size(
            gCast(gRaw(window)), gint(clamping: configuration.windowSize.width),
            gint(clamping: configuration.windowSize.height))
        gtk_container_add(gCast(gRaw(window)), gCast(gRaw(view)))
        gtk_widget_show_all(window)
        return .success(
            GTKWebViewCore(
                window: window, webView: view, contentManager: manager, context: context, cookieManager: cookieManager))
    }

    /// Queues an event for the Swift view (GTK thread; never blocks).
    func post(_ event: GTKWebViewEvent) {
        guard !isClosed else { return }
        GTKEventQueue.shared.post(event, to: reference)
    }

    /// Disconnects every signal, unregisters handlers, removes user scripts, destroys the window and
    /// view and drops the manager, context and cookie manager (GTK thread). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        signals.disconnectAll()
        for (name, registration) in handlers {
            unregisterInWebKit(name: name, world: registration.world)
        }
        handlers.removeAll()
        webkit_user_content_manager_remove_all_scripts(contentManager)
        webkit_web_view_stop_loading(webView)
        // The view may have moved into an app's own window (`detachFromOffscreenWindow()`):
        // destroying it takes it out of whatever container holds it, then the offscreen window goes.
        gtk_widget_destroy(gCast(gRaw(webView)))
        gtk_widget_destroy(window)
        g_object_unref(gRaw(webView))
        g_object_unref(gRaw(contentManager))
        g_object_unref(gRaw(cookieManager))
        g_object_unref(gRaw(context))
    }

    /// Removes a WebKit handler registration. A named world needs the `_in_world` variant: the plain
    /// one only removes the page-world registration (checked with WebKitGTK 2.50).
    func unregisterInWebKit(name: String, world: String?) {
        if let world {
            webkit_user_content_manager_unregister_script_message_handler_in_world(contentManager, name, world)
        } else {
            webkit_user_content_manager_unregister_script_message_handler(contentManager, name)
        }
    }

    /// The open core a signal's user data points to, or nil.
    static func open(_ userData: UnsafeMutableRawPointer?) -> GTKWebViewCore? {
        guard let target = SignalTarget.from(userData), let core = target.owner as? GTKWebViewCore, !core.isClosed
        else {
            return nil
        }
        return core
    }
}
#endif
