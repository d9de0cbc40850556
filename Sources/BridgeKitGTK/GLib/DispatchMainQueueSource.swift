#if WebKitGTK
import CWebKitGTK

/// A GLib source that runs Swift's main-actor work (the main dispatch queue) inside the GLib loop.
///
/// libdispatch (like CoreFoundation's run loop) exposes the main queue's wake-up eventfd
/// (`_dispatch_get_main_queue_handle_4CF`), which becomes readable when work is enqueued on the main
/// queue, and a drain function (`_dispatch_main_queue_callback_4CF`). The source watches the fd with
/// `g_unix_fd_add_full` and, when it is readable, first clears the eventfd and then drains the queue.
/// Clearing first matters: work enqueued during the drain writes the fd again, so it is not lost.
/// Nothing polls: the GLib loop sleeps in `poll()` until the fd (or any other GLib source) is ready.
/// libdispatch does not clear the eventfd itself; without the read the loop spins at full CPU.
///
/// Only possible on the process main thread before `dispatch_main()` has been called (a synchronous
/// `main.swift`); afterwards the handle is -1 and the main queue is drained by libdispatch itself.
@MainActor
enum DispatchMainQueueSource {
    /// The GLib source id, 0 while not installed.
    private(set) static var sourceID: guint = 0
    /// How many drains are running right now (0 or 1; GLib does not recurse into a busy source).
    private(set) static var activeDrains = 0

    /// True when the source can be installed: on the process main thread before `dispatch_main()`.
    static func canInstall() -> Bool {
        if sourceID != 0 { return true }
        return bk_is_process_main_thread() != 0 && bk_dispatch_main_queue_fd() >= 0
    }

    /// Installs the source on the default GLib main context once.
    /// - Returns: true when installed (now or earlier); false when the main queue is not run-loop
    ///   driven (not on the process main thread, or after `dispatch_main()`).
    static func installIfPossible() -> Bool {
        if sourceID != 0 { return true }
        guard bk_is_process_main_thread() != 0 else { return false }
        let fd = bk_dispatch_main_queue_fd()
        guard fd >= 0 else { return false }
        sourceID = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, dispatchMainQueueReady, nil, nil)
        return sourceID != 0
    }

    /// Called by the C callback around a drain.
    fileprivate static func drain(fd: Int32) {
        bk_eventfd_clear(fd)
        activeDrains += 1
        defer { activeDrains -= 1 }
        bk_dispatch_main_queue_drain()
    }
}

/// `GUnixFDSourceFunc`: `gboolean (*)(gint fd, GIOCondition condition, gpointer user_data)`.
private let dispatchMainQueueReady: GUnixFDSourceFunc = { fd, _, _ in
    MainActor.assumeIsolated {
        DispatchMainQueueSource.drain(fd: fd)
    }
    return 1  // G_SOURCE_CONTINUE
}
#endif
