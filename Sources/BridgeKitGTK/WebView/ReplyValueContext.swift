#if WebKitGTK
import CWebKitGTK

/// The JavaScript context in which reply values are made: WebKit's own shared context, touched
/// only while it is certainly still WebKit's. GTK thread only.
///
/// WebKitGTK 2.50 reads every reply value (`webkit_script_message_reply_return_value`) with one
/// process-wide JavaScript context of its own (`API::SerializedScriptValue::deserializationContext`),
/// the same one in which it creates posted message values. It drops that context after 10 s without
/// use and creates a new one on the next use. Two things then go wrong:
///
/// - a string made in a dropped context is read by another virtual machine (WebKit crashed in
///   reply serialization that way, with values from a private context, issue 3);
/// - whoever drops the last reference to a dropped context destroys its virtual machine outside
///   WebKit, which crashed in `JSC::VM::~VM` (issue 20: a reply held across WebKit's idle time,
///   then released).
///
/// So this type keeps one reference to the context of the newest message value and notes when
/// WebKit last used it (a message arrived, a reply was read). WebKit cannot have dropped it while
/// less than 10 s have passed since then (its own last use is no earlier), so a value is made in it
/// only within ``usableAge`` of that use, and the reference is given back before ``releaseAge``.
/// A reply answered later first asks WebKit for its current context (``ScriptMessageReply``
/// evaluates `null` in the view). A reference that could only be given back too late (the GTK
/// thread was stalled) is kept for the process lifetime instead (``abandonedCount``).
enum ReplyValueContext {
    /// Age (µs since WebKit's last known use) below which the context is used for a reply.
    static let usableAge: gint64 = 8_000_000
    /// Age below which the reference may still be given back (WebKit drops at 10 s at the earliest).
    static let releaseAge: gint64 = 9_000_000

    nonisolated(unsafe) private static var current: UnsafeMutablePointer<JSCContext>?
    nonisolated(unsafe) private static var lastUse: gint64 = 0
    nonisolated(unsafe) private static var releaseSource: guint = 0
    /// How many contexts were kept because the GTK thread came back too late to give them back.
    nonisolated(unsafe) private(set) static var abandonedCount = 0

    /// A private context for values that belong to no virtual machine (`null`), never released.
    nonisolated(unsafe) private static var immediates: UnsafeMutablePointer<JSCContext>?

    /// Records that WebKit handed out `value` (a posted message, a script result) just now: its
    /// context is WebKit's current one.
    static func noteWebKitValue(_ value: UnsafeMutablePointer<JSCValue>) {
        guard let context = jsc_value_get_context(value) else { return }
        let now = g_get_monotonic_time()
        if context != current {
            giveBack(now: now)
            g_object_ref(gRaw(context))
            current = context
        }
        lastUse = now
        scheduleRelease(now: now)
    }

    /// WebKit's current context when it is certainly still WebKit's, else nil.
    static func usable() -> UnsafeMutablePointer<JSCContext>? {
        guard let current, g_get_monotonic_time() - lastUse < usableAge else { return nil }
        return current
    }

    /// Records that WebKit just read a reply value (which uses its context).
    static func noteReplyRead() {
        guard current != nil else { return }
        lastUse = g_get_monotonic_time()
    }

    /// A new `null` value (transfer full). `null` is not a heap value, so any context serves.
    static func makeNull() -> UnsafeMutablePointer<JSCValue>? {
        if immediates == nil { immediates = jsc_context_new() }
        return immediates.flatMap { jsc_value_new_null($0) }
    }

    /// True while a context is held (for tests).
    static var holdsContext: Bool { current != nil }

    private static func giveBack(now: gint64) {
        guard let context = current else { return }
        current = nil
        if now - lastUse < releaseAge {
            g_object_unref(gRaw(context))
        } else {
            abandonedCount += 1  // WebKit may have dropped it: releasing could destroy its machine here
        }
    }

    private static func scheduleRelease(now: gint64) {
        guard releaseSource == 0 else { return }
        let delay = max(0, lastUse + usableAge - now) / 1000 + 1
        releaseSource = g_timeout_add_full(G_PRIORITY_HIGH, guint(delay), releaseTimer, nil, nil)
    }

    /// The release timer: gives the context back once unused for ``usableAge``, or waits again.
    fileprivate static func releaseTimerDidFire() {
        releaseSource = 0
        let now = g_get_monotonic_time()
        if now - lastUse >= usableAge {
            giveBack(now: now)
        } else {
            scheduleRelease(now: now)
        }
    }
}

/// `GSourceFunc` of the release timer.
private let releaseTimer: GSourceFunc = { _ in
    ReplyValueContext.releaseTimerDidFire()
    return 0  // G_SOURCE_REMOVE (a new timer is added when needed)
}
#endif
