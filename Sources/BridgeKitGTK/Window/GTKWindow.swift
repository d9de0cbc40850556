#if WebKitGTK
import CWebKitGTK
#if canImport(Glibc)
import Glibc
#endif

/// A visible top-level GTK window (`GtkWindow`) that shows a ``GTKWebView``: the window of a
/// Linux app built with BridgeKit.
///
/// ```swift
/// let window = try GTKWindow(title: "Shop", width: 900, height: 700)
/// try window.setContent(webView)     // the view leaves its offscreen window
/// window.closesOnTerminationSignals()
/// window.present()
/// await window.closeRequested()      // the user closed it, or SIGINT/SIGTERM, or requestClose()
/// await host.close()                 // settle the bridge first, then
/// window.close()                     // destroy the window
/// ```
///
/// Closing is in two steps so an app shuts down cleanly: the window's close button (GTK's
/// `delete-event`), ``requestClose()`` and, after ``closesOnTerminationSignals()``, `SIGINT` and
/// `SIGTERM` only *request* a close (``closeRequested()`` returns, ``onCloseRequest`` runs); the
/// window stays until the app calls ``close()``, so the app can close its ``WebKitGTKBridgeHost``
/// (pending calls settle with `unavailable`) while the view still exists.
///
/// Thread: main actor. The GTK objects live on the GTK thread (see ``GLibMainLoop``); in an app
/// whose synchronous `main.swift` runs the loop (``GLibMainLoop/runApp(_:)``) that is the main
/// thread. Dropping the last reference closes the window.
@MainActor
public final class GTKWindow {
    /// Called on the main actor each time a close is requested (see the type's documentation).
    public var onCloseRequest: (@MainActor () -> Void)?
    /// True after ``close()``.
    public private(set) var isClosed = false
    /// True once a close has been requested.
    public private(set) var isCloseRequested = false

    private let core: GTKWindowCore
    private var content: GTKWebView?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates the window, hidden (``present()`` shows it). Starts GTK through
    /// ``GLibMainLoop/start()`` when needed.
    /// - Parameters:
    ///   - title: the window title.
    ///   - width: the default width in pixels.
    ///   - height: the default height in pixels.
    /// - Throws: ``GTKWebViewError/displayUnavailable`` without a display;
    ///   ``GTKWebViewError/invalidArgument(_:)`` for a NUL in the title.
    public init(title: String, width: Int = 1024, height: Int = 768) throws(GTKWebViewError) {
        do {
            try GLibMainLoop.shared.start()
        } catch {
            throw .displayUnavailable
        }
        guard !title.utf8.contains(0) else { throw .invalidArgument("title contains NUL") }
        let made = GTKThread.perform { GTKWindowCore.make(title: title, width: width, height: height) }
        guard let core = made else { throw .displayUnavailable }
        self.core = core
        core.onCloseRequest = { [weak self] in
            Task { @MainActor in self?.requestClose() }
        }
    }

    isolated deinit {
        close()
    }

    /// The `GtkWindow *` (as a `GtkWidget *`) for an app that adds its own GTK widgets in C;
    /// `nil` after ``close()``. Use it only on the GTK thread, and never destroy it: call ``close()``.
    public var handle: OpaquePointer? {
        isClosed ? nil : OpaquePointer(core.window)
    }

    /// Shows `webView` as the window's only content, taking it out of its offscreen window
    /// (``GTKWebView/detachFromOffscreenWindow()``). The view keeps focus handling, input and the
    /// Web Inspector (when ``GTKWebViewConfiguration/developerExtrasEnabled`` is set).
    /// - Throws: ``GTKWebViewError/closed`` when the window or the view is closed;
    ///   ``GTKWebViewError/invalidArgument(_:)`` when the window already has content.
    public func setContent(_ webView: GTKWebView) throws(GTKWebViewError) {
        guard !isClosed else { throw .closed }
        guard content == nil else { throw .invalidArgument("the window already shows a web view") }
        let widget = GOpaque(try webView.detachFromOffscreenWindow())
        let core = self.core
        GTKThread.perform {
            let view = UnsafeMutablePointer<GtkWidget>(widget.pointer)
            gtk_container_add(gCast(gRaw(core.window)), view)
            gtk_widget_show(view)
            gtk_widget_grab_focus(view)
        }
        content = webView
    }

    /// Shows the window and brings it to the front (`gtk_widget_show_all`, `gtk_window_present`).
    public func present() {
        guard !isClosed else { return }
        let core = self.core
        GTKThread.perform {
            gtk_widget_show_all(core.window)
            gtk_window_present(gCast(gRaw(core.window)))
        }
    }

    /// Sets the window title. No effect after ``close()`` or for a title with a NUL.
    public func setTitle(_ title: String) {
        guard !isClosed, !title.utf8.contains(0) else { return }
        let core = self.core
        GTKThread.perform { gtk_window_set_title(gCast(gRaw(core.window)), title) }
    }

    /// Requests a close as the close button does: ``onCloseRequest`` runs and
    /// ``closeRequested()`` returns. The window stays until ``close()``.
    public func requestClose() {
        guard !isClosed else { return }
        isCloseRequested = true
        onCloseRequest?()
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
    }

    /// Waits until a close is requested (at once when one was requested already, or after
    /// ``close()``).
    public func closeRequested() async {
        if isCloseRequested || isClosed { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Makes `SIGINT` (Ctrl-C in the terminal) and `SIGTERM` request a close
    /// (`g_unix_signal_add`), instead of ending the process at once. Until ``close()``.
    public func closesOnTerminationSignals() {
        guard !isClosed else { return }
        let core = self.core
        GTKThread.perform { core.watchTerminationSignals() }
    }

    /// Destroys the window. Requests waiting in ``closeRequested()`` return. Idempotent.
    ///
    /// Close the ``WebKitGTKBridgeHost`` (or the view) first, as the bridge should settle its
    /// calls while the page exists. A view that is still open is taken out of the window before
    /// it goes, so it is never destroyed under its host: it stays open, unparented, until closed.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
        let view = content?.widget.map(GOpaque.init)
        content = nil
        let core = self.core
        GTKThread.perform {
            if let view {
                gtk_container_remove(gCast(gRaw(core.window)), UnsafeMutablePointer<GtkWidget>(view.pointer))
            }
            core.close()
        }
    }
}

/// The GTK-thread half of a ``GTKWindow``: the `GtkWindow`, its `delete-event` connection and
/// the Unix signal sources. Used only on the GTK thread, except ``onCloseRequest``, set once
/// before any signal can arrive.
final class GTKWindowCore: @unchecked Sendable {
    let window: UnsafeMutablePointer<GtkWidget>
    let signals = SignalConnections()
    var onCloseRequest: @Sendable () -> Void = {}
    private var unixSignalSources: [guint] = []
    private var isClosed = false

    private init(window: UnsafeMutablePointer<GtkWidget>) {
        self.window = window
    }

    /// Creates the window (GTK thread); nil when GTK cannot.
    static func make(title: String, width: Int, height: Int) -> GTKWindowCore? {
        guard let window = gtk_window_new(GTK_WINDOW_TOPLEVEL) else { return nil }
        g_object_ref_sink(gRaw(window))
        gtk_window_set_title(gCast(gRaw(window)), title)
        gtk_window_set_default_size(gCast(gRaw(window)), gint(clamping: width), gint(clamping: height))
        let core = GTKWindowCore(window: window)
        core.signals.connect(
            gRaw(window), signal: "delete-event", callback: gCallback(deleteEventCallback),
            target: SignalTarget(owner: core))
        return core
    }

    /// Installs `SIGINT` and `SIGTERM` sources that request a close (GTK thread). Idempotent.
    func watchTerminationSignals() {
        guard !isClosed, unixSignalSources.isEmpty else { return }
        // A process may start with these signals blocked (inherited from its launcher, e.g. a
        // test runner's thread): the sources would then never see them, and neither would the
        // default action end the process. Unblock them on this thread, which receives them.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGINT)
        sigaddset(&unblocked, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        for signal in [SIGINT, SIGTERM] {
            let target = Unmanaged.passRetained(SignalTarget(owner: self)).toOpaque()
            let id = g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, unixSignalCallback, target, releaseTarget)
            if id != 0 { unixSignalSources.append(id) }
        }
    }

    /// Disconnects, removes the signal sources and destroys the window (GTK thread). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        signals.disconnectAll()
        for id in unixSignalSources { g_source_remove(id) }
        unixSignalSources.removeAll()
        gtk_widget_destroy(window)
        g_object_unref(gRaw(window))
    }

    /// The open core behind a signal's user data, or nil.
    static func open(_ userData: UnsafeMutableRawPointer?) -> GTKWindowCore? {
        guard let core = SignalTarget.from(userData)?.owner as? GTKWindowCore, !core.isClosed else { return nil }
        return core
    }
}

/// `delete-event`: `gboolean (*)(GtkWidget *, GdkEvent *, gpointer)`. Returns TRUE (the window
/// stays) and requests a close.
private let deleteEventCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = {
        _, _, userData in
        GTKWindowCore.open(userData)?.onCloseRequest()
        return 1
    }

/// `GSourceFunc` of the Unix signal sources: requests a close and keeps the source.
private let unixSignalCallback: GSourceFunc = { userData in
    GTKWindowCore.open(userData)?.onCloseRequest()
    return 1  // G_SOURCE_CONTINUE
}

/// `GDestroyNotify` of the Unix signal sources: releases the ``SignalTarget``.
private let releaseTarget: GDestroyNotify = { data in
    if let data { Unmanaged<SignalTarget>.fromOpaque(data).release() }
}
#endif
