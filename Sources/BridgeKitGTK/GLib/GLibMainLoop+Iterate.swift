#if WebKitGTK
import CWebKitGTK

extension GLibMainLoop {
    /// Runs GLib iterations on the current main-actor job until `condition` holds or `timeout` passes.
    ///
    /// Each iteration blocks in `g_main_context_iteration(NULL, TRUE)` (it sleeps in `poll()` until a
    /// GLib source is ready; it does not spin). WebKit callbacks fired by the iteration run inside it,
    /// on this thread, so `condition` sees their effects. The timeout is a GLib timer source that wakes
    /// the loop; it is removed when the condition holds first.
    ///
    /// This blocks the main actor while it runs, in both modes: other main-actor tasks wait (in
    /// ``Mode/integrated`` the dispatch source does not re-enter). It is the way to wait for WebKit
    /// events in ``Mode/pumping`` (tests) and a convenience elsewhere.
    /// - Parameters:
    ///   - condition: checked before each iteration; return true to stop.
    ///   - timeout: longest time to iterate (milliseconds resolution), nil for no limit.
    /// - Returns: the last value of `condition` (false means the timeout passed first).
    @discardableResult
    public func iterate(until condition: () -> Bool, timeout: Duration? = nil) -> Bool {
        if condition() { return true }
        noteCurrentThread()
        let flag = TimeoutFlag()
        var timerID: guint = 0
        if let timeout {
            timerID = g_timeout_add_full(
                G_PRIORITY_DEFAULT, Self.milliseconds(timeout), timeoutFired,
                Unmanaged.passRetained(flag).toOpaque(), releaseTimeoutFlag)
        }
        while !condition() && !flag.fired {
            g_main_context_iteration(nil, 1)
        }
        if timerID != 0 && !flag.fired {
            g_source_remove(timerID)
        }
        return condition()
    }

    /// Clamps a duration to GLib's `guint` milliseconds, rounding up so a tiny timeout still waits.
    static func milliseconds(_ duration: Duration) -> guint {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        if millis.overflow || millis.partialValue >= Int64(guint.max) { return guint.max }
        let extra = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return guint(min(millis.partialValue + extra, Int64(guint.max)))
    }
}

/// Set by the GLib timer of ``GLibMainLoop/iterate(until:timeout:)``; only touched on the GTK thread.
private final class TimeoutFlag {
    var fired = false
}

/// `GSourceFunc`: `gboolean (*)(gpointer user_data)`. Marks the flag and removes the timer.
private let timeoutFired: GSourceFunc = { data in
    if let data {
        Unmanaged<TimeoutFlag>.fromOpaque(data).takeUnretainedValue().fired = true
    }
    return 0  // G_SOURCE_REMOVE
}

/// `GDestroyNotify` of the timer source: releases the flag box passed as user data.
private let releaseTimeoutFlag: GDestroyNotify = { data in
    if let data {
        Unmanaged<TimeoutFlag>.fromOpaque(data).release()
    }
}
#endif
