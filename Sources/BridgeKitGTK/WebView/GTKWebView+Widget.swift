#if WebKitGTK
import CWebKitGTK

extension GTKWebView {
    /// The `WebKitWebView` as a `GtkWidget *`, for an app that builds its own GTK interface in C
    /// (cast it with `OpaquePointer` / `UnsafeMutablePointer<GtkWidget>`); `nil` after ``close()``.
    ///
    /// The view starts inside an offscreen window: call ``detachFromOffscreenWindow()`` before
    /// adding it to a container of your own, or use ``GTKWindow/setContent(_:)``, which does both.
    /// The view keeps its own reference to the widget; do not destroy or unref it yourself:
    /// ``close()`` destroys it, taking it out of whatever container holds it.
    ///
    /// Thread: use the pointer only on the GTK thread. In an app whose synchronous `main.swift`
    /// runs the loop (``GLibMainLoop/runApp(_:)``, ``GLibMainLoop/runUntilComplete(_:)``) that is
    /// the main thread, so main-actor code may use it directly.
    public var widget: OpaquePointer? {
        isClosed ? nil : OpaquePointer(core.webView)
    }

    /// Takes the view out of the offscreen window it was created in, so it can go into a visible
    /// window (``GTKWindow``) or any GTK container. Idempotent.
    /// - Returns: the `GtkWidget *` (``widget``), now without a parent.
    /// - Throws: ``GTKWebViewError/closed`` after ``close()``.
    @discardableResult
    public func detachFromOffscreenWindow() throws(GTKWebViewError) -> OpaquePointer {
        try checkOpen()
        let core = self.core
        GTKThread.perform {
            guard !core.isDetached else { return }
            core.isDetached = true
            // The core holds its own reference, so removing the view from its parent keeps it alive.
            gtk_container_remove(gCast(gRaw(core.window)), gCast(gRaw(core.webView)))
        }
        return OpaquePointer(core.webView)
    }
}
#endif
