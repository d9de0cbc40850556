#if WebKitGTK
import CWebKitGTK

/// The one-shot answer to a script message posted to a handler registered with reply
/// (`webkit_user_content_manager_register_script_message_handler_with_reply`): settles the
/// Promise that the page's `postMessage` returned.
///
/// Only the first ``returnValue(_:)`` or ``returnError(_:)`` has an effect; later calls return false.
/// If the object is deallocated without an answer, the page's Promise resolves with `null`.
/// Holds a reference to WebKit's `WebKitScriptMessageReply` until answered or deallocated.
/// Thread: main actor.
@MainActor
public final class ScriptMessageReply {
    private var reply: OpaquePointer?

    /// True once an answer was sent (or the object gave up its WebKit reply).
    public var isSettled: Bool { reply == nil }

    /// Wraps and references WebKit's reply object (`webkit_script_message_reply_ref`).
    init(_ reply: OpaquePointer) {
        self.reply = webkit_script_message_reply_ref(reply)
    }

    /// Resolves the page's Promise with `text` as a JavaScript string (all characters kept, NUL too).
    /// - Parameter text: the string the Promise resolves with (BridgeKit sends message JSON text).
    /// - Returns: true when this was the first answer.
    @discardableResult
    public func returnValue(_ text: String) -> Bool {
        guard let reply, let value = JSCValueText.makeString(text) else { return false }
        self.reply = nil
        webkit_script_message_reply_return_value(reply, value)
        g_object_unref(gRaw(value))
        webkit_script_message_reply_unref(reply)
        return true
    }

    /// Rejects the page's Promise with an `Error` whose `message` is `message`
    /// (`webkit_script_message_reply_return_error_message`; a NUL in it becomes U+FFFD).
    /// - Returns: true when this was the first answer.
    @discardableResult
    public func returnError(_ message: String) -> Bool {
        guard let reply else { return false }
        self.reply = nil
        var safe = message
        if !isCStringSafe(message) {
            safe = String(String.UnicodeScalarView(message.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
        }
        webkit_script_message_reply_return_error_message(reply, safe)
        webkit_script_message_reply_unref(reply)
        return true
    }

    isolated deinit {
        guard let reply else { return }
        if let null = JSCValueText.makeNull() {
            webkit_script_message_reply_return_value(reply, null)
            g_object_unref(gRaw(null))
        }
        webkit_script_message_reply_unref(reply)
    }
}

/// A message a page posted to a script message handler of a ``GTKWebView``.
public struct GTKScriptMessage: Sendable {
    /// The posted value as text: the raw characters when the page posted a string, otherwise the
    /// value's JSON text (`jsc_value_to_json`; "null" when it has no JSON form, e.g. undefined).
    public let bodyJSONText: String
    /// True when the page posted a JavaScript string (then ``bodyJSONText`` is that string itself).
    public let isString: Bool
    /// The answer channel when the handler was registered with reply, else nil.
    public let reply: ScriptMessageReply?
}
#endif
