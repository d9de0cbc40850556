#if WebKitGTK
/// Errors thrown by ``GLibMainLoop``.
public enum GLibMainLoopError: Error, Sendable, Equatable {
    /// `gtk_init_check` failed: there is no display (run under `xvfb-run -a`, or set `DISPLAY`).
    case displayUnavailable
    /// ``GLibMainLoop/run()`` and ``GLibMainLoop/runUntilComplete(_:)`` need
    /// ``GLibMainLoop/Mode/integrated`` (a synchronous `main.swift` on the process main thread);
    /// in ``GLibMainLoop/Mode/dedicatedThread`` the GTK thread runs the loop by itself.
    case notOnProcessMainThread
    /// ``GLibMainLoop/runUntilComplete(_:)`` was called from a main-actor job that the GLib loop is
    /// currently running; the nested loop could never run the operation (the main queue is busy).
    case nestedInMainQueueDrain
}
#endif
