#if WebKitGTK
import CWebKitGTK
import Synchronization
public import Foundation

// Script messages from a page to a ``GTKWebView``: the message type, registering a handler, and
// WebKit's signal delivering a message (read into Swift on the GTK thread, handed to the handler
// on the main actor). One concern, one file: the message and its answer (``GTKScriptMessage/Reply``).

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

    /// The bytes the body holds in the app while it waits for its handler (UTF-8), counted against
    /// the view's inbound budget (``GTKWebViewCore/InboundBudget``).
    var queuedBytes: Int {
        switch body {
        case .text(let text): text.utf8.count
        case .strings(let elements): elements.reduce(0) { $0 + ($1?.count ?? 0) }
        }
    }

    /// True when the page posted a JavaScript string (then ``bodyJSONText`` is that string itself).
    public let isString: Bool
    /// The answer channel when the handler was registered with reply, else nil.
    public let reply: Reply?
    /// Whose share of the view's inbound budget it counts against (``GTKWebViewCore/InboundBudget``).
    var inboundShare = GTKWebViewCore.InboundBudget.Share.others
    /// True when the app read only the head of the relay's large body because its sender was not
    /// admitted (``JSCValueText/unadmittedHead(of:admits:)``); the relay's own head form (a body
    /// over the limit) is not.
    var readOnlyHead = false

    init(body: Body, isString: Bool, reply: Reply?) {
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
        /// The byte count.
        var count: Int { Int(g_bytes_get_size(bytes)) }

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
    /// message's ``GTKScriptMessage/Reply`` (`webkit_user_content_manager_register_script_message_handler_with_reply`);
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
        try registerScriptMessageHandler(
            name: name, world: world, withReply: withReply, mainFrameOnly: false, handler: handler)
    }

    /// ``registerScriptMessageHandler(name:world:withReply:handler:)`` for BridgeKit's own
    /// handlers. `mainFrameOnly`: a handler in an isolated world that only a main-frame-only user
    /// script of that world posts to (the document notice), whose messages count against the main
    /// frame's share of the view's inbound budget, so other frames' floods cannot drop them.
    /// `relayAdmitsSender`, for the relay's handler only: its messages' frame stamps are read for
    /// their share, and its large bodies from a sender the function refuses are read only as far
    /// as their head.
    func registerScriptMessageHandler(
        name: String, world: String?, withReply: Bool, mainFrameOnly: Bool,
        relayAdmitsSender: (@Sendable (_ origin: String, _ isMainFrame: Bool) -> Bool)? = nil,
        handler: @escaping @MainActor (GTKScriptMessage) -> Void
    ) throws(GTKWebViewError) {
        try checkOpen()
        guard !name.isEmpty, isCStringSafe(name) else {
            throw .invalidArgument("handler name is empty or contains NUL")
        }
        if let world, world.isEmpty || !isCStringSafe(world) {
            throw .invalidArgument("world name is empty or contains NUL")
        }
        if mainFrameOnly && world == nil {
            throw .invalidArgument("a main-frame-only handler must be in an isolated world")
        }
        if let existing = messageHandlers[name] {
            throw .handlerAlreadyRegistered(name: name, world: existing.world)
        }
        let core = self.core
        try GTKThread.perform {
            core.register(
                name: name, world: world, withReply: withReply, mainFrameOnly: mainFrameOnly,
                admitsSender: relayAdmitsSender)
        }.get()
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
    func register(
        name: String, world: String?, withReply: Bool, mainFrameOnly: Bool = false,
        admitsSender: (@Sendable (String, Bool) -> Bool)? = nil
    ) -> Result<Void, GTKWebViewError> {
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
        handlers[name] = HandlerRegistration(
            world: world, withReply: withReply, signalID: signalID, mainFrameOnly: mainFrameOnly,
            readsRelayStamp: admitsSender != nil, admitsSender: admitsSender)
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
    /// Over the view's inbound budget (``InboundBudget``) the message is not read (too many wait),
    /// or is dropped once read (its bytes do not fit): a message with a reply is answered at once
    /// with an error whose message starts `bridgekit:busy` (the relay settles a call so refused
    /// with `memory_budget_exceeded` and posts anything else again), one without is dropped. A string
    /// to a handler in an isolated world (the relay's, which posts only short strings) is read
    /// first, to find its frame stamp. A large body from a sender the router does not admit
    /// (``HandlerRegistration/admitsSender``) is read only as far as its head.
    func deliver(name: String, value: UnsafeMutablePointer<JSCValue>, reply: OpaquePointer?) -> Bool {
        guard let registration = handlers[name] else { return false }
        let (share, read) = Self.inboundShare(of: value, to: registration)
        guard inbound.withLock({ $0.admits(share) }) else {
            if let reply { webkit_script_message_reply_return_error_message(reply, InboundBudget.busy) }
            return true
        }
        // WebKit made `value` in its current shared context just now: replies are made in it.
        ReplyValueContext.noteWebKitValue(value)
        let reply = reply.map { GTKScriptMessage.Reply($0, core: self) }
        var message: GTKScriptMessage
        if let read {
            message = GTKScriptMessage(body: .text(read.text), isString: read.isString, reply: reply)
        } else if let admits = registration.admitsSender,
            let head = JSCValueText.unadmittedHead(of: value, admits: admits)
        {
            message = GTKScriptMessage(body: .strings(head), isString: false, reply: reply)
            message.readOnlyHead = true
        } else if let elements = JSCValueText.stringElements(of: value, limit: GTKScriptMessage.maxStringElements) {
            message = GTKScriptMessage(body: .strings(elements), isString: false, reply: reply)
        } else {
            let (text, isString) = JSCValueText.text(of: value)
            message = GTKScriptMessage(body: .text(text), isString: isString, reply: reply)
        }
        message.inboundShare = share
        let bytes = message.queuedBytes
        guard inbound.withLock({ $0.queue(bytes: bytes, share: share) }) else {
            message.reply?.returnError(InboundBudget.busy)
            return true
        }
        post(.scriptMessage(name: name, message: message))
        return true
    }

    /// Whose share of the inbound budget a message to `registration` counts against
    /// (``InboundBudget``): the main frame's for a main-frame-only handler, and for a message to
    /// the relay's handler (in an isolated world page scripts cannot reach) that the relay
    /// stamped "main"; everyone else's otherwise. A string to the relay's handler (the relay
    /// posts only short strings) is read to find its stamp and returned as `read`.
    /// GTK thread.
    static func inboundShare(of value: UnsafeMutablePointer<JSCValue>, to registration: HandlerRegistration) -> (
        share: InboundBudget.Share, read: (text: String, isString: Bool)?
    ) {
        if registration.mainFrameOnly { return (.mainFrame, nil) }
        guard registration.readsRelayStamp else { return (.others, nil) }
        if jsc_value_is_string(value) != 0 {
            let text = JSCValueText.text(of: value)
            return (text.text.utf8.starts(with: mainStamp) ? .mainFrame : .others, text)
        }
        return (JSCValueText.isMainFrameArray(value) ? .mainFrame : .others, nil)
    }

    /// The start of a relay's one-string envelope from the main frame (``RelayEnvelope``).
    private static let mainStamp = Array("main ".utf8)
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
/// Returns TRUE when queued (the ``GTKScriptMessage/Reply`` holds a reference and answers later).
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

    /// For the relay's large form `[origin, frame, body]` from a sender `admits` refuses: the
    /// relay's head form `[origin, frame, head, length]` (``RelayEnvelope``), the body's first
    /// 1,024 UTF-16 code units and its length, so the body itself is never read into the app
    /// (the router answers it `forbidden` from the head,
    /// ``BridgeRouter/receiveHead(_:byteCount:reason:from:replyHandler:)``). Reading 15 MiB
    /// from a page no policy admits, to refuse it, held up every other web view (attack 18; with
    /// the relay's flow control every such post reaches the app). `nil` for any other value, or
    /// when `admits` says yes.
    static func unadmittedHead(
        of value: UnsafeMutablePointer<JSCValue>, admits: (String, Bool) -> Bool
    ) -> [GTKScriptMessage.SharedBytes?]? {
        guard jsc_value_is_array(value) != 0, let lengthValue = jsc_value_object_get_property(value, "length")
        else { return nil }
        let count = jsc_value_to_int32(lengthValue)
        g_object_unref(gRaw(lengthValue))
        guard count == 3, let originValue = jsc_value_object_get_property_at_index(value, 0) else { return nil }
        defer { g_object_unref(gRaw(originValue)) }
        guard let frameValue = jsc_value_object_get_property_at_index(value, 1) else { return nil }
        defer { g_object_unref(gRaw(frameValue)) }
        guard jsc_value_is_string(originValue) != 0, jsc_value_is_string(frameValue) != 0 else { return nil }
        let origin = text(of: originValue).text
        let frame = text(of: frameValue).text
        guard frame == "main" || frame == "sub", !admits(origin, frame == "main"),
            let body = jsc_value_object_get_property_at_index(value, 2)
        else { return nil }
        defer { g_object_unref(gRaw(body)) }
        guard jsc_value_is_string(body) != 0, let context = jsc_value_get_context(body),
            let bodyLength = jsc_value_object_get_property(body, "length")
        else { return nil }
        let length = jsc_value_to_double(bodyLength)
        g_object_unref(gRaw(bodyLength))
        guard let start = jsc_value_new_number(context, 0), let end = jsc_value_new_number(context, Double(headUnits))
        else { return nil }
        defer {
            g_object_unref(gRaw(start))
            g_object_unref(gRaw(end))
        }
        var arguments: [UnsafeMutablePointer<JSCValue>?] = [start, end]
        guard let head = jsc_value_object_invoke_methodv(body, "slice", 2, &arguments) else { return nil }
        defer { g_object_unref(gRaw(head)) }
        guard jsc_value_is_string(head) != 0 else { return nil }
        let elements = [
            gBytes(origin), gBytes(frame), jsc_value_to_string_as_bytes(head), gBytes(String(Int(length))),
        ].map { $0.map(GTKScriptMessage.SharedBytes.init(taking:)) }
        return elements.contains { $0 == nil } ? nil : elements
    }

    /// How much of an unadmitted body is read (``unadmittedHead(of:admits:)``), in UTF-16 code
    /// units: the relay's head of an oversized body.
    static let headUnits = 1024

    /// Whether `value` is an array whose element 1 is the string "main": the relay's array
    /// envelope from the main frame (``RelayEnvelope``). Reads that one element only.
    static func isMainFrameArray(_ value: UnsafeMutablePointer<JSCValue>) -> Bool {
        guard jsc_value_is_array(value) != 0, let element = jsc_value_object_get_property_at_index(value, 1) else {
            return false
        }
        defer { g_object_unref(gRaw(element)) }
        guard jsc_value_is_string(element) != 0, let chars = jsc_value_to_string(element) else { return false }
        defer { g_free(chars) }
        return strcmp(chars, "main") == 0
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

// MARK: Answering a message

extension GTKScriptMessage {
    /// The one-shot answer to a script message posted to a handler registered with reply
    /// (`webkit_user_content_manager_register_script_message_handler_with_reply`): settles the
    /// Promise that the page's `postMessage` returned.
    ///
    /// Only the first ``returnValue(_:)`` or ``returnError(_:)`` has an effect; later calls return false.
    /// If the object is deallocated without an answer, the page's Promise resolves with `null`.
    /// Holds a reference to WebKit's `WebKitScriptMessageReply` until answered or deallocated.
    /// Thread-safe: answer from any thread; the answer is handed to WebKit on the GTK thread.
    public final class Reply: Sendable {
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
}

/// A string answer on the GTK thread: sent in WebKit's current context (``ReplyValueContext``),
/// after asking WebKit for that context when the one noted last may be gone. Owns one reference
/// to the reply until sent.
private final class DeferredAnswer: @unchecked Sendable {
    // Only touched on the GTK thread once posted there.
    let reply: GOpaque
    let text: GTKScriptMessage.Reply.TextHandoff

    init(reply: GOpaque, text: GTKScriptMessage.Reply.TextHandoff) {
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
/// A reply answered later first asks WebKit for its current context (``GTKScriptMessage/Reply``
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
