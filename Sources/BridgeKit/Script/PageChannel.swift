/// How a router reaches its page: "evaluate this script in the main frame".
///
/// Every host plugs in here: the WKWebView adapter wraps `evaluateJavaScript(_:completionHandler:)`,
/// the WebKitGTK host wraps `webkit_web_view_evaluate_javascript`, and tests record scripts.
/// The closure may be called from any thread; it hops to the actor its engine needs.
///
/// Two forms: an `async` evaluate function, or the engine's own completion-handler form
/// (``init(post:)``), which lets the router hand over the reply of a ``SynchronousBridgeTask``
/// without starting a Swift task for it.
public struct PageChannel: Sendable {
    /// The completion-handler form of a channel: hands `script` to the engine and calls
    /// `completion` exactly once, with `nil` or the engine's error, from any thread.
    public typealias Post =
        @Sendable (_ script: String, _ completion: @escaping @Sendable (_ error: (any Error)?) -> Void) -> Void

    /// Evaluates a script built by ``PageScript`` in the page's main frame.
    /// - Throws: whatever the engine reports (the page is gone, a script error).
    public var evaluate: @Sendable (_ script: String) async throws -> Void { storage.evaluate }

    /// The completion-handler form, when the channel was made with ``init(post:)``.
    var post: Post? { storage.post }

    /// Both functions behind one reference: the router copies a channel for every reply, and a
    /// copy then costs one reference count instead of one per function.
    private let storage: Storage

    private final class Storage: Sendable {
        let evaluate: @Sendable (_ script: String) async throws -> Void
        let post: Post?

        init(evaluate: @escaping @Sendable (_ script: String) async throws -> Void, post: Post?) {
            self.evaluate = evaluate
            self.post = post
        }
    }

    /// Creates a channel from an evaluate function.
    public init(evaluate: @escaping @Sendable (_ script: String) async throws -> Void) {
        storage = Storage(evaluate: evaluate, post: nil)
    }

    /// Creates a channel from a function in the completion-handler form of the engines
    /// (`WKWebView.evaluateJavaScript(_:completionHandler:)`,
    /// `webkit_web_view_evaluate_javascript` with a callback). ``evaluate`` is derived from it.
    /// - Parameter post: hands the script to the engine, from any thread (it hops to the
    ///   thread its engine needs), and calls its completion once (later calls are ignored): a
    ///   completion that is never called leaves an awaiting ``evaluate`` suspended for good.
    public init(post: @escaping Post) {
        storage = Storage(
            evaluate: { script in
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    // A completion called twice must not resume twice (a trap): the first one counts.
                    let pending = PendingEvaluation(continuation)
                    post(script) { error in
                        guard let continuation = pending.take() else { return }
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume()
                        }
                    }
                }
            }, post: post)
    }
}

/// The continuation of one evaluation, taken at most once.
private final class PendingEvaluation: Sendable {
    private let continuation: Locked<CheckedContinuation<Void, any Error>?>

    init(_ continuation: CheckedContinuation<Void, any Error>) {
        self.continuation = Locked(continuation)
    }

    func take() -> CheckedContinuation<Void, any Error>? {
        continuation.withLock { $0.take() }
    }
}

/// A structured, one-shot reply path for one message, where the engine has one
/// (`WKScriptMessageHandlerWithReply`'s `replyHandler`, WebKitGTK's `WebKitScriptMessageReply`).
///
/// The router answers through it exactly once: with the JSON text of the final reply for calls
/// it refuses or that come from subframes (an evaluated script only reaches the main frame), or
/// with `nil` ("no data", the page's promise resolves to `undefined`) right away otherwise.
/// A path created with `carriesFinalReplies` gets the final reply of main-frame calls too.
/// Answering a second time does nothing.
public final class ReplyHandler: Sendable {
    private let send: Locked<(@Sendable (String?) -> Void)?>

    /// Whether the router sends the final reply of a main-frame call through this path (one
    /// engine round trip) instead of answering `nil` at once and evaluating a reply script (two).
    /// Progress messages still go by script, and the router waits until each has been evaluated
    /// before the task continues, so a final reply sent this way never overtakes them.
    public let carriesFinalReplies: Bool

    /// Creates a reply path.
    /// - Parameters:
    ///   - carriesFinalReplies: see ``carriesFinalReplies``; default `false`. Set it only where
    ///     a reply through this path reaches the page's shim like a script would (WebKit's
    ///     with-reply handlers with BridgeKit's relay or a direct page-world handler: the
    ///     shim's `postMessage` promise resolves with the reply's JSON text and hands it to
    ///     `WebBridge._receive`).
    ///   - send: receives the reply's JSON text, or `nil`; called at most once, from any thread.
    public init(carriesFinalReplies: Bool = false, _ send: @escaping @Sendable (_ json: String?) -> Void) {
        self.carriesFinalReplies = carriesFinalReplies
        self.send = Locked(send)
    }

    /// Answers, if not answered yet.
    /// - Returns: `true` the first time.
    @discardableResult
    public func reply(_ json: String?) -> Bool {
        let taken = send.withLock { stored in
            let taken = stored
            stored = nil
            return taken
        }
        guard let taken else { return false }
        taken(json)
        return true
    }

    /// Whether ``reply(_:)`` has been called.
    public var hasReplied: Bool { send.withLock { $0 == nil } }
}
