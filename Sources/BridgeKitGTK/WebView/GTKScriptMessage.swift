#if WebKitGTK
import CWebKitGTK
public import Foundation

// Script messages from a page to a ``GTKWebView``: the message type, registering a handler, and
// WebKit's signal delivering a message (read into Swift on the GTK thread, handed to the handler
// on the main actor). One concern, one file; ``ScriptMessageReply`` answers a message.

/// A message a page posted to a script message handler of a ``GTKWebView``.
public struct GTKScriptMessage: Sendable {
    /// The posted value, as read on the GTK thread.
    enum Body: Sendable {
        /// A string's characters, or the JSON text of any other value.
        case text(String)
        /// A short array of strings, `null` and `undefined` (see ``GTKScriptMessage/stringElements``):
        /// each string's UTF-8 as JavaScriptCore wrote it, not copied.
        case strings([SharedBytes?])
    }

    let body: Body

    /// True when the page posted a JavaScript string (then ``bodyJSONText`` is that string itself).
    public let isString: Bool
    /// The answer channel when the handler was registered with reply, else nil.
    public let reply: ScriptMessageReply?

    init(body: Body, isString: Bool, reply: ScriptMessageReply?) {
        self.body = body
        self.isString = isString
        self.reply = reply
    }

    /// The posted value as text: the raw characters when the page posted a string, otherwise the
    /// value's JSON text (`jsc_value_to_json`; "null" when it has no JSON form, e.g. undefined).
    /// For a value with ``stringElements`` the JSON text is written on each read (what
    /// `JSON.stringify` writes for the array: `null` for null and undefined elements).
    public var bodyJSONText: String {
        switch body {
        case .text(let text): text
        case .strings(let elements): Self.jsonArray(elements.map { $0?.string })
        }
    }

    /// When the page posted an array of at most ``maxStringElements`` elements, each a string,
    /// `null` or `undefined`: its elements (`nil` for `null` and `undefined`), each string
    /// received as its own string, never escaped into JSON text (a large element is not copied
    /// again). `nil` for any other value.
    public var stringElements: [String?]? {
        if case .strings(let elements) = body { return elements.map { $0?.string } }
        return nil
    }

    /// The same elements as ``stringElements``, as the UTF-8 bytes JavaScriptCore wrote for each
    /// string (`jsc_value_to_string_as_bytes`), without a copy: the `Data` shares the engine's
    /// buffer and keeps it alive. A lone UTF-16 surrogate is written as its 3-byte sequence
    /// (`ED A0…BF xx`, not valid UTF-8); ``stringElements`` decodes it as U+FFFD.
    public var utf8Elements: [Data?]? {
        if case .strings(let elements) = body { return elements.map { $0?.data } }
        return nil
    }

    /// The longest array whose elements ``stringElements`` gives; longer arrays arrive as JSON text.
    public static let maxStringElements = 16

    /// A `GBytes`, referenced once and unreferenced when the last user is gone. GLib's byte
    /// buffers are immutable and reference-counted atomically, so any thread may read them.
    final class SharedBytes: @unchecked Sendable {
        private let bytes: OpaquePointer

        /// Takes over one reference to `bytes`.
        init(taking bytes: OpaquePointer) {
            self.bytes = bytes
        }

        deinit { g_bytes_unref(bytes) }

        /// The bytes decoded as UTF-8 (a copy; invalid sequences become U+FFFD).
        var string: String { gBytesString(bytes) }

        /// The bytes, shared: the `Data` holds this object until it is released.
        var data: Data {
            var size: gsize = 0
            guard let base = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: Int(size),
                deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
        }
    }

    /// `JSON.stringify` of an array of strings and nulls.
    static func jsonArray(_ elements: [String?]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let element else {
                out.append(contentsOf: "null".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x00..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: Registering handlers

extension GTKWebView {
    /// Registers a script message handler: scripts running in `world` (nil: the page's own world)
    /// can then call `window.webkit.messageHandlers.<name>.postMessage(value)`, and `handler` gets
    /// each message on the main actor. With `withReply`, the page's Promise is settled by the
    /// message's ``ScriptMessageReply`` (`webkit_user_content_manager_register_script_message_handler_with_reply`);
    /// without, it resolves by itself (`..._register_script_message_handler` / `..._in_world`;
    /// WebKitGTK 2.50 returns a Promise in both cases).
    ///
    /// A handler registered in a named world is invisible to the page's scripts. WebKit's signal does
    /// not say which world or frame posted, so a name can be registered only once per view, whatever
    /// the world: otherwise a page-world handler with the same name would deliver page messages to
    /// the same Swift code as the isolated one. Put origin and frame into the message from the
    /// world script (the page cannot forge them there).
    /// - Parameters:
    ///   - name: the channel name, e.g. "webbridge" (non-empty, no NUL).
    ///   - world: the script world name, e.g. "bridgekit", or nil for the page world.
    ///   - withReply: whether the page's Promise is settled by the message's reply.
    ///   - handler: receives each message on the main actor, while the view is open and the handler
    ///     registered.
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for an empty
    ///   name or a NUL; ``GTKWebViewError/handlerAlreadyRegistered(name:world:)`` when `name` is
    ///   registered already (field case R24: never a second add without a remove);
    ///   ``GTKWebViewError/registrationRejected(name:world:)`` when WebKit refuses.
    public func registerScriptMessageHandler(
        name: String, world: String? = nil, withReply: Bool,
        handler: @escaping @MainActor (GTKScriptMessage) -> Void
    ) throws(GTKWebViewError) {
        try checkOpen()
        guard !name.isEmpty, isCStringSafe(name) else {
            throw .invalidArgument("handler name is empty or contains NUL")
        }
        if let world, world.isEmpty || !isCStringSafe(world) {
            throw .invalidArgument("world name is empty or contains NUL")
        }
        if let existing = messageHandlers[name] {
            throw .handlerAlreadyRegistered(name: name, world: existing.world)
        }
        let core = self.core
        try GTKThread.perform { core.register(name: name, world: world, withReply: withReply) }.get()
        messageHandlers[name] = (world, handler)
    }

    /// Unregisters the handler `name` (in the world it was registered in) and disconnects its signal;
    /// takes effect in loaded documents at once. Messages already on their way are dropped (a reply
    /// they carry then answers `null`).
    /// - Returns: true when a handler was registered under `name`.
    @discardableResult
    public func unregisterScriptMessageHandler(name: String) -> Bool {
        guard !isClosed, messageHandlers.removeValue(forKey: name) != nil else { return false }
        let core = self.core
        GTKThread.perform { _ = core.unregister(name: name) }
        return true
    }

    /// The names of the registered script message handlers.
    public var scriptMessageHandlerNames: Set<String> {
        Set(messageHandlers.keys)
    }
}

// MARK: Delivery (GTK thread)

extension GTKWebViewCore {
    /// Connects the message signal and registers `name` in WebKit (GTK thread).
    /// - Returns: failure ``GTKWebViewError/registrationRejected(name:world:)`` when WebKit refuses.
    func register(name: String, world: String?, withReply: Bool) -> Result<Void, GTKWebViewError> {
        guard !isClosed else { return .failure(.closed) }
        let signal = withReply ? "script-message-with-reply-received::\(name)" : "script-message-received::\(name)"
        let callback = withReply ? gCallback(scriptMessageWithReplyCallback) : gCallback(scriptMessageCallback)
        let signalID = signals.connect(
            gRaw(contentManager), signal: signal, callback: callback, target: SignalTarget(owner: self, tag: name))
        let registered: gboolean =
            if withReply {
                webkit_user_content_manager_register_script_message_handler_with_reply(contentManager, name, world)
            } else if let world {
                webkit_user_content_manager_register_script_message_handler_in_world(contentManager, name, world)
            } else {
                webkit_user_content_manager_register_script_message_handler(contentManager, name)
            }
        guard registered != 0 else {
            signals.disconnect(signalID)
            return .failure(.registrationRejected(name: name, world: world))
        }
        handlers[name] = HandlerRegistration(world: world, withReply: withReply, signalID: signalID)
        return .success(())
    }

    /// Unregisters `name` and disconnects its signal (GTK thread).
    /// - Returns: whether it was registered.
    func unregister(name: String) -> Bool {
        guard !isClosed, let registration = handlers.removeValue(forKey: name) else { return false }
        signals.disconnect(registration.signalID)
        unregisterInWebKit(name: name, world: registration.world)
        return true
    }

    /// Queues a message for the handler `name`, if registered (GTK thread).
    /// - Returns: false when there is no such handler (WebKit then answers a reply with undefined).
    func deliver(name: String, value: UnsafeMutablePointer<JSCValue>, reply: OpaquePointer?) -> Bool {
        guard handlers[name] != nil else { return false }
        // WebKit made `value` in its current shared context just now: replies are made in it.
        ReplyValueContext.noteWebKitValue(value)
        let reply = reply.map { ScriptMessageReply($0, core: self) }
        let message: GTKScriptMessage
        if let elements = JSCValueText.stringElements(of: value, limit: GTKScriptMessage.maxStringElements) {
            message = GTKScriptMessage(body: .strings(elements), isString: false, reply: reply)
        } else {
            let (text, isString) = JSCValueText.text(of: value)
            message = GTKScriptMessage(body: .text(text), isString: isString, reply: reply)
        }
        post(.scriptMessage(name: name, message: message))
        return true
    }
}

/// `script-message-received::<name>` (4.1 API):
/// `void (*)(WebKitUserContentManager *, WebKitJavascriptResult *, gpointer)`.
private let scriptMessageCallback:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
        _, result, userData in
        guard let result, let target = SignalTarget.from(userData), let core = GTKWebViewCore.open(userData),
            let value = webkit_javascript_result_get_js_value(result)
        else { return }
        _ = core.deliver(name: target.tag, value: value, reply: nil)
    }

/// `script-message-with-reply-received::<name>`:
/// `gboolean (*)(WebKitUserContentManager *, JSCValue *, WebKitScriptMessageReply *, gpointer)`.
/// Returns TRUE when queued (the ``ScriptMessageReply`` holds a reference and answers later).
private let scriptMessageWithReplyCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<JSCValue>?, OpaquePointer?, UnsafeMutableRawPointer?)
        -> gboolean = {
            _, value, reply, userData in
            guard let value, let reply, let target = SignalTarget.from(userData),
                let core = GTKWebViewCore.open(userData)
            else { return 0 }
            return core.deliver(name: target.tag, value: value, reply: reply) ? 1 : 0
        }

// MARK: Values

/// Converting between JavaScriptCore GLib values (`JSCValue`) and Swift strings without losing
/// characters: strings go through `GBytes` (the C-string functions stop at a NUL).
/// GTK thread only.
enum JSCValueText {
    /// The text of a value: its characters when it is a string (`isString` true), else its JSON text
    /// (`jsc_value_to_json`; "null" when it has none, e.g. undefined or a cyclic object).
    static func text(of value: UnsafeMutablePointer<JSCValue>) -> (text: String, isString: Bool) {
        if jsc_value_is_string(value) != 0 {
            let bytes = jsc_value_to_string_as_bytes(value)
            defer { if let bytes { g_bytes_unref(bytes) } }
            return (gBytesString(bytes), true)
        }
        return (json(of: value) ?? "null", false)
    }

    /// The elements of `value` when it is an array of at most `limit` elements, each a string,
    /// `null` or `undefined` (`nil` for those two); each string is read on its own as UTF-8
    /// (`jsc_value_to_string_as_bytes`, kept without a copy), never through JSON text. `nil` for
    /// any other value.
    static func stringElements(of value: UnsafeMutablePointer<JSCValue>, limit: Int) -> [GTKScriptMessage.SharedBytes?]?
    {
        guard jsc_value_is_array(value) != 0, let lengthValue = jsc_value_object_get_property(value, "length") else {
            return nil
        }
        let length = Int(jsc_value_to_int32(lengthValue))
        g_object_unref(gRaw(lengthValue))
        guard length >= 0, length <= limit else { return nil }
        var elements: [GTKScriptMessage.SharedBytes?] = []
        elements.reserveCapacity(length)
        for index in 0..<length {
            guard let element = jsc_value_object_get_property_at_index(value, guint(index)) else { return nil }
            defer { g_object_unref(gRaw(element)) }
            if jsc_value_is_string(element) != 0 {
                guard let bytes = jsc_value_to_string_as_bytes(element) else { return nil }
                elements.append(GTKScriptMessage.SharedBytes(taking: bytes))
            } else if jsc_value_is_null(element) != 0 || jsc_value_is_undefined(element) != 0 {
                elements.append(nil)
            } else {
                return nil
            }
        }
        return elements
    }

    /// The JSON text of a value, or nil when it has none (undefined, a function, a cyclic object).
    static func json(of value: UnsafeMutablePointer<JSCValue>) -> String? {
        gStringTakingOwnership(jsc_value_to_json(value, 0))
    }

    /// A new string value (transfer full: the caller unrefs it) in `context`. For a reply, that
    /// must be WebKit's current context (``ReplyValueContext/usable()``): WebKit reads reply values
    /// with it, and a string of another virtual machine crashed it.
    static func makeString(_ text: String, in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<
        JSCValue
    >? {
        guard let bytes = gBytesSharing(text) else { return nil }
        defer { g_bytes_unref(bytes) }
        return jsc_value_new_string_from_bytes(context, bytes)
    }
}
#endif
