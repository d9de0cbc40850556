#if WebKitGTK
import CWebKitGTK

extension GLibMainLoop {
    /// Blocks the current main-actor job until `condition` holds or `timeout` passes, delivering
    /// WebKit events (title, load, messages, …) to the views synchronously meanwhile.
    ///
    /// Rarely needed: WebKit runs by itself and events reach the main actor as tasks. It exists for
    /// code that must wait synchronously on the main actor (tests, a blocking host step). While it
    /// blocks, other main-actor tasks (including awaited web view calls of other tasks) do not run.
    /// - ``Mode/integrated``: runs nested GLib iterations on the main thread
    ///   (`g_main_context_iteration(NULL, TRUE)`, woken by a GLib timer for the timeout).
    /// - ``Mode/dedicatedThread``: sleeps until the GTK thread posts an event or the time is up.
    /// Neither polls.
    /// - Parameters:
    ///   - condition: checked after each delivery; return true to stop.
    ///   - timeout: longest time to wait, nil for no limit.
    /// - Returns: true once `condition` holds; false when the timeout passed first.
    @discardableResult
    public func iterate(until condition: () -> Bool, timeout: Duration? = nil) -> Bool {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        GTKEventQueue.shared.deliver()
        var timer: TimerSource?
        defer { timer?.cancel() }
        while !condition() {
            let remaining = deadline.map { clock.now.duration(to: $0) }
            if let remaining, remaining <= .zero { return false }
            switch mode {
            case .integrated:
                if timer == nil, let remaining { timer = TimerSource(after: remaining) }
                g_main_context_iteration(nil, 1)  // the timer wakes it at the deadline
            case .dedicatedThread, nil:
                GTKEventQueue.shared.waitForEvent(nanoseconds: remaining.map(Self.nanoseconds) ?? UInt64.max)
            }
            GTKEventQueue.shared.deliver()
        }
        return true
    }

    /// A non-negative duration in nanoseconds, saturating.
    nonisolated static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max }
        let (total, overflow2) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? UInt64.max : total
    }
}

/// A one-shot GLib timer on the default context that only wakes the loop and records that it fired.
/// Integrated mode only (main thread = GTK thread).
private final class TimerSource {
    private let flag = TimeoutFlag()
    private var id: guint = 0

    init(after duration: Duration) {
        let millis = GLibMainLoop.nanoseconds(duration) / 1_000_000 + 1
        id = g_timeout_add_full(
            G_PRIORITY_DEFAULT, guint(min(millis, UInt64(guint.max))), timeoutFired,
            Unmanaged.passRetained(flag).toOpaque(), releaseTimeoutFlag)
    }

    func cancel() {
        if id != 0 && !flag.fired {
            g_source_remove(id)
        }
        id = 0
    }
}

/// Set by the GLib timer; only touched on the GTK thread.
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
