#if WebKitGTK
import CWebKitGTK
import Synchronization

/// The one-shot answer to a script message posted to a handler registered with reply
/// (`webkit_user_content_manager_register_script_message_handler_with_reply`): settles the
/// Promise that the page's `postMessage` returned.
///
/// Only the first ``returnValue(_:)`` or ``returnError(_:)`` has an effect; later calls return false.
/// If the object is deallocated without an answer, the page's Promise resolves with `null`.
/// Holds a reference to WebKit's `WebKitScriptMessageReply` until answered or deallocated.
/// Thread-safe: answer from any thread; the answer is handed to WebKit on the GTK thread.
public final class ScriptMessageReply: Sendable {
    private let reply: Mutex<GOpaque?>
    /// The view's GTK-thread half, to ask WebKit for its current JavaScript context when an answer
    /// comes too late for the one noted at arrival (see ``ReplyValueContext``). Used on the GTK
    /// thread only, and only while it is open.
    private let core: GTKWebViewCore

    /// Wraps and references WebKit's reply object (`webkit_script_message_reply_ref`). GTK thread.
    /// No JavaScript context is held: reply values are made in ``ReplyValueContext``.
    init(_ reply: OpaquePointer, core: GTKWebViewCore) {
        self.reply = Mutex(GOpaque(webkit_script_message_reply_ref(reply)))
        self.core = core
    }

    /// True once an answer was given.
    public var isSettled: Bool { reply.withLock { $0 == nil } }

    /// Resolves the page's Promise with `text` as a JavaScript string (all characters kept, NUL too).
    ///
    /// This object stops referring to `text` once JavaScriptCore has its own copy, before WebKit
    /// serializes the value for the page, so a large reply is not held three times at once (the
    /// string, JavaScriptCore's copy, WebKit's serialization) by this path; a caller that
    /// released its own reference leaves that memory free for WebKit's copies.
    /// - Parameter text: the string the Promise resolves with (BridgeKit sends message JSON text).
    /// - Returns: true when this was the first answer.
    @discardableResult
    public func returnValue(_ text: String) -> Bool {
        guard let reply = take() else { return false }
        let answer = DeferredAnswer(reply: reply, text: TextHandoff(text))
        let core = self.core
        // Captures neither `self` nor anything the deinit needs: the answer releases the reply
        // itself, so an answered object's deinit has nothing left to post to the GTK thread.
        GTKThread.post {
            if ReplyValueContext.usable() != nil || core.isClosed {
                answer.send()
            } else {
                answer.sendAfterRefreshingContext(in: core)
            }
        }
        return true
    }

    /// Rejects the page's Promise with an `Error` whose `message` is `message`
    /// (`webkit_script_message_reply_return_error_message`; a NUL in it becomes U+FFFD).
    /// - Returns: true when this was the first answer.
    @discardableResult
    public func returnError(_ message: String) -> Bool {
        guard let reply = take() else { return false }
        var safe = message
        if !isCStringSafe(message) {
            safe = String(String.UnicodeScalarView(message.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
        }
        let text = safe
        GTKThread.post {
            webkit_script_message_reply_return_error_message(reply.pointer, text)
            webkit_script_message_reply_unref(reply.pointer)
        }
        return true
    }

    /// A reply's text on its way to the GTK thread, given up once taken (see ``returnValue(_:)``).
    final class TextHandoff: Sendable {
        private let text: Mutex<String?>

        init(_ text: String) { self.text = Mutex(text) }

        /// The text on the first call, `nil` afterwards.
        func take() -> String? {
            text.withLock { stored in
                defer { stored = nil }
                return stored
            }
        }
    }

    private func take() -> GOpaque? {
        reply.withLock { stored in
            defer { stored = nil }
            return stored
        }
    }

    deinit {
        // Answered: the answer released the reply. Unanswered: resolve with null (a value of no
        // virtual machine, so no context of WebKit's is needed) and release it, on the GTK thread.
        guard let reply = take() else { return }
        GTKThread.post {
            DeferredAnswer.sendNull(reply)
        }
    }
}

/// A string answer on the GTK thread: sent in WebKit's current context (``ReplyValueContext``),
/// after asking WebKit for that context when the one noted last may be gone. Owns one reference
/// to the reply until sent.
private final class DeferredAnswer: @unchecked Sendable {
    // Only touched on the GTK thread once posted there.
    let reply: GOpaque
    let text: ScriptMessageReply.TextHandoff

    init(reply: GOpaque, text: ScriptMessageReply.TextHandoff) {
        self.reply = reply
        self.text = text
    }

    /// Sends the text in WebKit's current context, or `null` when that context is not known
    /// (the view closed, or WebKit could not run a script in it), and releases the reply.
    func send() {
        guard let context = ReplyValueContext.usable() else {
            Self.sendNull(reply)
            return
        }
        if let value = text.take().flatMap({ JSCValueText.makeString($0, in: context) }) {
            webkit_script_message_reply_return_value(reply.pointer, value)
            g_object_unref(gRaw(value))
            ReplyValueContext.noteReplyRead()
        }
        webkit_script_message_reply_unref(reply.pointer)
    }

    /// Evaluates `null` in the view's main frame: WebKit hands the result out in its current
    /// context, which ``ReplyValueContext`` notes; then sends.
    func sendAfterRefreshingContext(in core: GTKWebViewCore) {
        let data = Unmanaged.passRetained(self).toOpaque()
        webkit_web_view_evaluate_javascript(core.webView, "null", -1, nil, nil, nil, contextRefreshed, data)
    }

    /// Resolves the page's Promise with `null` and releases the reply.
    static func sendNull(_ reply: GOpaque) {
        if let null = ReplyValueContext.makeNull() {
            webkit_script_message_reply_return_value(reply.pointer, null)
            g_object_unref(gRaw(null))
        }
        webkit_script_message_reply_unref(reply.pointer)
    }
}

/// `GAsyncReadyCallback` of ``DeferredAnswer/sendAfterRefreshingContext(in:)`` (GTK thread).
private let contextRefreshed: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let answer = Unmanaged<DeferredAnswer>.fromOpaque(data).takeRetainedValue()
    if let source, let result {
        var error: UnsafeMutablePointer<GError>?
        if let value = webkit_web_view_evaluate_javascript_finish(gCast(gRaw(source)), result, &error) {
            ReplyValueContext.noteWebKitValue(value)
            g_object_unref(gRaw(value))
        }
        if let error { g_error_free(error) }
    }
    answer.send()
}

// MARK: The context reply values are made in

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
