#if WebKitGTK
import CWebKitGTK

/// One registered script message handler of a ``GTKWebView``.
struct ScriptMessageHandlerEntry {
    let world: String?
    let withReply: Bool
    let signalID: gulong
    let handler: @MainActor (GTKScriptMessage) -> Void
}

extension GTKWebView {
    /// Registers a script message handler: scripts running in `world` (nil: the page's own world)
    /// can then call `window.webkit.messageHandlers.<name>.postMessage(value)`, and `handler` gets
    /// each message. With `withReply`, `postMessage` returns a Promise that the message's
    /// ``ScriptMessageReply`` settles (`webkit_user_content_manager_register_script_message_handler_with_reply`);
    /// otherwise it returns undefined (`..._register_script_message_handler` / `..._in_world`).
    ///
    /// A handler registered in a named world is invisible to the page's scripts. WebKit's signal does
    /// not say which world or frame posted, so a name can be registered only once per view, whatever
    /// the world: otherwise a page-world handler with the same name would deliver page messages to
    /// the same Swift code as the isolated one. Put origin and frame into the message from the
    /// world script (the page cannot forge them there).
    /// - Parameters:
    ///   - name: the channel name, e.g. "webbridge" (non-empty, no NUL).
    ///   - world: the script world name, e.g. "bridgekit", or nil for the page world.
    ///   - withReply: whether the page gets a Promise settled by the message's reply.
    ///   - handler: receives each message on the main actor, while the view is open.
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for an empty
    ///   name or a NUL; ``GTKWebViewError/handlerAlreadyRegistered(name:world:)`` when `name` is
    ///   registered already (field case R24: never a second add without a remove);
    ///   ``GTKWebViewError/registrationRejected(name:world:)`` when WebKit refuses.
    public func registerScriptMessageHandler(
        name: String, world: String? = nil, withReply: Bool,
        handler: @escaping @MainActor (GTKScriptMessage) -> Void
    ) throws(GTKWebViewError) {
        try checkOpen()
        guard !name.isEmpty, isCStringSafe(name) else { throw .invalidArgument("handler name is empty or contains NUL") }
        if let world, world.isEmpty || !isCStringSafe(world) {
            throw .invalidArgument("world name is empty or contains NUL")
        }
        if let existing = messageHandlers[name] {
            throw .handlerAlreadyRegistered(name: name, world: existing.world)
        }
        let signal = withReply ? "script-message-with-reply-received::\(name)" : "script-message-received::\(name)"
        let callback = withReply ? gCallback(scriptMessageWithReplyReceivedCallback) : gCallback(scriptMessageReceivedCallback)
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
            throw .registrationRejected(name: name, world: world)
        }
        messageHandlers[name] = ScriptMessageHandlerEntry(
            world: world, withReply: withReply, signalID: signalID, handler: handler)
    }

    /// Unregisters the handler `name` (in the world it was registered in) and disconnects its signal;
    /// takes effect in loaded documents at once.
    /// - Returns: true when a handler was registered under `name`.
    @discardableResult
    public func unregisterScriptMessageHandler(name: String) -> Bool {
        guard !isClosed, let entry = messageHandlers.removeValue(forKey: name) else { return false }
        signals.disconnect(entry.signalID)
        unregisterInWebKit(name: name, world: entry.world)
        return true
    }

    /// The names of the registered script message handlers.
    public var scriptMessageHandlerNames: Set<String> {
        Set(messageHandlers.keys)
    }

    /// Removes the WebKit registration. A named world needs the `_in_world` variant: the plain one
    /// only removes the page-world registration (checked with WebKitGTK 2.50).
    func unregisterInWebKit(name: String, world: String?) {
        if let world {
            webkit_user_content_manager_unregister_script_message_handler_in_world(contentManager, name, world)
        } else {
            webkit_user_content_manager_unregister_script_message_handler(contentManager, name)
        }
    }

    /// Delivers a message to the handler registered under `name`.
    /// - Returns: false when there is no such handler (WebKit then answers a reply with undefined).
    func deliverScriptMessage(
        name: String, value: UnsafeMutablePointer<JSCValue>, reply: OpaquePointer?
    ) -> Bool {
        guard let entry = messageHandlers[name] else { return false }
        let (text, isString) = JSCValueText.text(of: value)
        let message = GTKScriptMessage(
            bodyJSONText: text, isString: isString, reply: reply.map { ScriptMessageReply($0) })
        entry.handler(message)
        return true
    }
}

/// `script-message-received::<name>` (4.1 API):
/// `void (*)(WebKitUserContentManager *, WebKitJavascriptResult *, gpointer)`.
private let scriptMessageReceivedCallback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
    _, result, userData in
    let arguments = GLibCallbackArguments((result, userData))
    MainActor.assumeIsolated {
        let (result, userData) = arguments.value
        guard let result, let target = SignalTarget.from(userData), let view = GTKWebView.openView(userData),
            let value = webkit_javascript_result_get_js_value(result)
        else { return }
        _ = view.deliverScriptMessage(name: target.tag, value: value, reply: nil)
    }
}

/// `script-message-with-reply-received::<name>`:
/// `gboolean (*)(WebKitUserContentManager *, JSCValue *, WebKitScriptMessageReply *, gpointer)`.
/// Returns TRUE when delivered (the ``ScriptMessageReply`` holds a reference and answers).
private let scriptMessageWithReplyReceivedCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<JSCValue>?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
        _, value, reply, userData in
        let arguments = GLibCallbackArguments((value, reply, userData))
        return MainActor.assumeIsolated {
            let (value, reply, userData) = arguments.value
            guard let value, let reply, let target = SignalTarget.from(userData),
                let view = GTKWebView.openView(userData)
            else { return 0 }
            return view.deliverScriptMessage(name: target.tag, value: value, reply: reply) ? 1 : 0
        }
    }
#endif
