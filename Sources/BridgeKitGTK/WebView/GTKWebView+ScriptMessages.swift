#if WebKitGTK
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
#endif
