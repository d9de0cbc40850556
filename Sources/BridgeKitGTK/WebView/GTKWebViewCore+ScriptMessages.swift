#if WebKitGTK
import CWebKitGTK

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
#endif
