#if WebKitGTK
/// Errors thrown by ``GLibMainLoop``.
public enum GLibMainLoopError: Error, Sendable, Equatable {
    /// `gtk_init_check` failed: there is no display (run under `xvfb-run -a`, or set `DISPLAY`).
    case displayUnavailable
    /// ``GLibMainLoop/runUntilComplete(_:)`` needs the process main thread with a run-loop driven
    /// main dispatch queue (a synchronous `main.swift`), but the main actor runs elsewhere, e.g. under
    /// an `async` main or Swift Testing, where the runtime has called `dispatch_main()`.
    case notOnProcessMainThread
    /// ``GLibMainLoop/runUntilComplete(_:)`` was called from a main-actor job that the GLib loop is
    /// currently running; the nested loop could never run the operation (the main queue is busy).
    case nestedInMainQueueDrain
}
#endif
