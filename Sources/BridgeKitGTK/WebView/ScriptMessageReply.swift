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
    /// The JSC context of the posted value, referenced: answers are created in it, so they belong
    /// to the same VM as the message (values from a private context crashed WebKit's reply
    /// serialization under load).
    private let context: GOpaque?

    /// Wraps and references WebKit's reply object (`webkit_script_message_reply_ref`) and the
    /// posted value's context (`jsc_value_get_context`). GTK thread.
    init(_ reply: OpaquePointer, value: UnsafeMutablePointer<JSCValue>) {
        self.reply = Mutex(GOpaque(webkit_script_message_reply_ref(reply)))
        if let context = jsc_value_get_context(value) {
            g_object_ref(gRaw(context))
            self.context = GOpaque(OpaquePointer(context))
        } else {
            self.context = nil
        }
    }

    /// The context answers are created in (use on the GTK thread only).
    private static func jscContext(_ context: GOpaque?) -> UnsafeMutablePointer<JSCContext>? {
        context.map { UnsafeMutablePointer<JSCContext>($0.pointer) }
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
        let handoff = TextHandoff(text)
        let context = self.context
        // Captures neither `self` nor anything the deinit needs: the answer releases the reply and
        // the context itself, so an answered object's deinit, on whatever thread it runs, has
        // nothing left to post to the GTK thread (no second wake-up per reply).
        GTKThread.post {
            let jsc = Self.jscContext(context)
            if let value = handoff.take().flatMap({ JSCValueText.makeString($0, in: jsc) }) {
                webkit_script_message_reply_return_value(reply.pointer, value)
                g_object_unref(gRaw(value))
            }
            webkit_script_message_reply_unref(reply.pointer)
            if let jsc { g_object_unref(gRaw(jsc)) }
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
        let context = self.context
        GTKThread.post {
            webkit_script_message_reply_return_error_message(reply.pointer, text)
            webkit_script_message_reply_unref(reply.pointer)
            if let jsc = Self.jscContext(context) { g_object_unref(gRaw(jsc)) }
        }
        return true
    }

    /// A reply's text on its way to the GTK thread, given up once taken (see ``returnValue(_:)``).
    private final class TextHandoff: Sendable {
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
        // Answered: the answer released the reply and the context. Unanswered: resolve with null
        // and release both, on the GTK thread.
        guard let reply = take() else { return }
        let context = self.context
        GTKThread.post {
            let jsc = Self.jscContext(context)
            if let null = JSCValueText.makeNull(in: jsc) {
                webkit_script_message_reply_return_value(reply.pointer, null)
                g_object_unref(gRaw(null))
            }
            webkit_script_message_reply_unref(reply.pointer)
            if let jsc { g_object_unref(gRaw(jsc)) }
        }
    }
}
#endif
