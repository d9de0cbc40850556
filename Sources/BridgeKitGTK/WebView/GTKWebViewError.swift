#if WebKitGTK
/// Errors thrown by ``GTKWebView``, ``GTKCookieStore`` and their helpers.
public enum GTKWebViewError: Error, Sendable, Equatable {
    /// GTK could not start (no display); see ``GLibMainLoopError/displayUnavailable``.
    case displayUnavailable
    /// The web view (or its cookie store) was closed; also what its running asynchronous calls end with on close.
    case closed
    /// The waiting Swift task was cancelled.
    case cancelled
    /// An argument cannot be passed to WebKit (e.g. a NUL character in a name, URI or cookie field).
    /// The associated value names the argument and the reason.
    case invalidArgument(String)
    /// ``GTKWebView/registerScriptMessageHandler(name:world:withReply:handler:)`` was called for a
    /// (name, world) pair that is already registered through this web view.
    case handlerAlreadyRegistered(name: String, world: String?)
    /// WebKit refused the registration (`..._register_script_message_handler*` returned FALSE),
    /// e.g. because the name was registered on the same user content manager by other code.
    case registrationRejected(name: String, world: String?)
    /// The script threw or did not compile, or its result type cannot be returned
    /// (WebKit's `GError` message, e.g. "…: SyntaxError: …" or "Unsupported result type").
    case javaScriptFailed(String)
    /// The script's result has no JSON form (e.g. a cyclic object).
    case resultNotJSON
    /// A cookie manager call failed (WebKit's `GError` message).
    case cookieOperationFailed(String)
}
#endif
