import Foundation

/// Routes calls from one page to named tasks and sends their replies back.
///
/// One router serves one web view. The host (WKWebView adapter, WebKitGTK host, or a test
/// page) feeds it every script message with ``receive(_:from:replyHandler:)``, gives it a
/// ``PageChannel`` to evaluate scripts, and reports committed navigations with
/// ``pageDidCommitNavigation()``.
///
/// Guarantees:
/// - **Every call with an id settles exactly once**, with data or a ``BridgeError`` code,
///   whatever happens: unknown task, bad options, a thrown error, cancel, timeout, navigation,
///   ``close()``. A call without an id is fire-and-forget.
/// - **Replies are data.** Every script is built by ``PageScript``.
/// - **Pages change.** A reply of a call made before a navigation committed is never delivered
///   after it; a navigation that never commits changes nothing.
/// - **Secure by default.** Calls are checked against ``AccessPolicy`` before their options
///   are decoded.
///
/// Thread safety: all methods may be called from any thread; everything the router changes is
/// guarded by one lock, and each call's life is one small state machine changed under it.
/// Tasks start where they ask (``TaskExecution``); a ``SynchronousBridgeTask`` runs on the
/// calling thread before ``receive(_:from:replyHandler:)`` returns.
public final class BridgeRouter: Sendable {
    /// The settings this router was created with.
    public let configuration: BridgeConfiguration
    /// The router's one lock: its page, its calls and its tasks (``RouterState``). Never held
    /// while calling out (a task, a channel, an observer, a reply handler).
    let state = Locked(RouterState())

    /// Creates a router.
    /// - Parameter configuration: policy, limits and default timeout.
    public init(configuration: BridgeConfiguration = BridgeConfiguration()) {
        self.configuration = configuration
        fireAndForget = FireAndForgetQueue(limit: configuration.limits.maxPendingCalls)
        budget = ByteBudget(limit: configuration.limits.maxHeldBytes)
    }

    /// The bytes held for the page, against ``BridgeLimits/maxHeldBytes``.
    let budget: ByteBudget

    /// The bytes the router holds for its page now, as ``BridgeLimits/maxHeldBytes`` counts
    /// them: for diagnostics and tests. Any thread.
    public var heldBytes: Int { budget.heldBytes }

    /// The most bytes the router has held for its page at once (see ``heldBytes``); never more
    /// than ``BridgeLimits/maxHeldBytes`` plus the final replies its tasks produced meanwhile.
    public var peakHeldBytes: Int { budget.peakBytes }

    /// Fire-and-forget calls, started one at a time in arrival order and cancelled when their
    /// page is gone (``FireAndForgetQueue``). Bounded by ``BridgeLimits/maxPendingCalls``.
    let fireAndForget: FireAndForgetQueue

    deinit {
        fireAndForget.finish()
        let (calls, pageCalls) = state.withLock { ($0.settleAllCalls(.routerClosed), $0.takeAllPageCalls()) }
        for (call, action) in calls {
            guard case .settle(let work, let timer) = action else { continue }
            work?.cancel()
            timer?.cancel()
            // A kept reply path must still be answered once (WebKit expects every reply handler
            // to be called); main-frame calls have no path left once the router is gone.
            if let replyHandler = call.replyHandler {
                let reply = Self.finalReplyJSON(
                    .failure(.unavailable("The router was released.")), id: call.id,
                    limit: configuration.limits.maxPayloadBytes)
                replyHandler.reply(reply.json.replyText)
            }
        }
        for call in pageCalls {
            call.timer?.cancel()
            call.continuation.resume(throwing: BridgeError.unavailable("The router was released."))
        }
    }

    // MARK: Tasks

    /// Registers a task under its name.
    ///
    /// `@inlinable`: the task's type-erased steps are compiled where the task is registered
    /// (docs/performance.md, "register(_:)").
    /// - Throws: ``TaskRegistrationError/duplicateName(_:)`` when a task with that name exists
    ///   (use ``replace(_:)-(BridgeTask)`` to swap it), ``TaskRegistrationError/emptyName`` for `""`.
    @inlinable
    public func register(_ task: some BridgeTask) throws {
        try register(erased: AnyBridgeTask(task))
    }

    /// Registers a ``SynchronousBridgeTask`` under its name (see ``register(_:)-(BridgeTask)``).
    ///
    /// `@inlinable`, like the general form: the task's one-pass step (decode, run, encode) is
    /// compiled with its own types where it is registered (docs/performance.md, "SynchronousStep").
    /// - Throws: as ``register(_:)-(BridgeTask)``.
    @inlinable
    public func register(_ task: some SynchronousBridgeTask) throws {
        try register(erased: AnyBridgeTask(task))
    }

    /// Registers an erased task (see ``register(_:)-(BridgeTask)``).
    @usableFromInline
    func register(erased: AnyBridgeTask) throws {
        guard !erased.name.isEmpty else { throw TaskRegistrationError.emptyName }
        guard state.withLock({ $0.taskTable.add(erased) }) else {
            throw TaskRegistrationError.duplicateName(erased.name)
        }
        taskListDidChange()
    }

    /// Registers a task, replacing any task with the same name. Calls already running keep the
    /// task they started with.
    /// - Returns: `true` when a task was replaced, `false` when the name was new.
    @discardableResult
    public func replace(_ task: some BridgeTask) -> Bool {
        replace(erased: AnyBridgeTask(task))
    }

    /// Registers a ``SynchronousBridgeTask``, replacing any task with the same name (see
    /// ``replace(_:)-(BridgeTask)``), with its one-pass step compiled for its own types.
    /// - Returns: `true` when a task was replaced, `false` when the name was new.
    @inlinable
    @discardableResult
    public func replace(_ task: some SynchronousBridgeTask) -> Bool {
        replace(erased: AnyBridgeTask(task))
    }

    /// Registers an erased task, replacing any task with the same name (see ``replace(_:)-(BridgeTask)``).
    @usableFromInline
    func replace(erased: AnyBridgeTask) -> Bool {
        defer { taskListDidChange() }
        return state.withLock { $0.taskTable.replace(with: erased) }
    }

    /// Removes the task `name`. Later calls get `unknown_task`; running calls finish.
    /// - Returns: `true` when a task was removed.
    @discardableResult
    public func removeTask(named name: String) -> Bool {
        let removed = state.withLock { $0.taskTable.remove(named: name) }
        if removed { taskListDidChange() }
        return removed
    }

    /// The names of the registered tasks, sorted.
    public var taskNames: [String] {
        state.withLock { $0.taskTable.tasks.keys.sorted() }
    }

    // MARK: Page

    /// Connects the page channel replies, progress, events and native-to-page calls go through.
    /// Replaces any previous channel.
    public func connect(_ channel: PageChannel) {
        state.withLock { state in
            state.channel = channel
        }
    }

    /// The current page generation. It starts at 0 and grows by one on every
    /// ``pageDidCommitNavigation()``.
    public var pageGeneration: UInt64 {
        state.withLock { $0.generation }
    }

    /// Tells the router that a new document replaced the page's document: call it when WebKit
    /// commits a main-frame navigation (`webView(_:didCommit:)`, WebKitGTK's `load-changed`
    /// `WEBKIT_LOAD_COMMITTED`), when the web content process terminated, or when the bridge is
    /// detached from the page. Not when a navigation merely *starts*: a navigation that never
    /// commits (a 204 or 205 response, a download, `window.stop()`, a navigation the app's policy
    /// ignores) leaves the same document in place, and its calls must go on and settle normally.
    /// Not for same-document navigations (`pushState`, fragments) either. Any thread.
    ///
    /// Only the host says when a document commits: nothing a page posts through the bridge's
    /// channel starts a new generation (a forged notice would end calls of documents that are
    /// still there, a cross-origin widget's among them). The `WKWebView` adapter, which cannot
    /// observe commits without being the navigation delegate, learns of them from a script in a
    /// content world of its own (``WebBridgeDocumentNotice``).
    ///
    /// Every pending call of the old document settles with `navigated` (not delivered: the
    /// document that asked is gone) and its task is cancelled; every native-to-page call throws
    /// `navigated`. Fire-and-forget calls of the old document that are running are cancelled, and
    /// queued ones never start.
    public func pageDidCommitNavigation() {
        let (calls, pageCalls, generation) = state.withLock { state in
            state.generation &+= 1
            return (state.settleAllCalls(.navigationCommitted), state.takeAllPageCalls(), state.generation)
        }
        fireAndForget.cancel(before: generation)
        for (call, action) in calls {
            guard case .settle(let work, let timer) = action else { continue }
            work?.cancel()
            timer?.cancel()
            call.replyHandler?.reply(nil)
            record(.outbound, .reply, id: call.id, task: call.taskName, outcome: "navigated", reason: .notDelivered)
        }
        for call in pageCalls {
            call.timer?.cancel()
            call.continuation.resume(throwing: BridgeError.navigated())
        }
    }

    /// Closes the router: pending calls settle with `unavailable` (delivered while the channel
    /// is still connected), tasks are cancelled (fire-and-forget calls too; queued ones never
    /// start), the channel is dropped, and later messages are answered with `unavailable`.
    /// Idempotent.
    public func close() async {
        let (calls, pageCalls, channel) = state.withLock { state in
            let result = (state.settleAllCalls(.routerClosed), state.takeAllPageCalls(), state.channel)
            state.isClosed = true
            state.channel = nil
            return result
        }
        fireAndForget.finish()
        for call in pageCalls {
            call.timer?.cancel()
            call.continuation.resume(throwing: BridgeError.unavailable("The router was closed."))
        }
        for (call, action) in calls {
            guard case .settle(let work, let timer) = action else { continue }
            work?.cancel()
            timer?.cancel()
            await sendFinalReply(.failure(.unavailable("The router was closed.")), of: call, channel: channel)
        }
    }

    /// Sets the function that receives every ``TrafficRecord``; `nil` stops logging. The
    /// function is called on the thread that produced the record and must not block.
    public func setTrafficObserver(_ observer: (@Sendable (TrafficRecord) -> Void)?) {
        state.withLock { state in
            state.observer = observer
        }
    }

    /// Gives the traffic observer, if any, one record.
    func record(
        _ direction: TrafficRecord.Direction, _ kind: TrafficKind, id: String?, task: String?,
        outcome: String? = nil, reason: TrafficReason? = nil, bytes: Int = 0, internalError: String? = nil
    ) {
        guard let observer = state.withLock({ $0.observer }) else { return }
        // One rule for every record: the task name when known, else nil (never "").
        observer(
            TrafficRecord(
                direction: direction, kind: kind.rawValue, id: id,
                task: task.flatMap { $0.isEmpty ? nil : $0 }, outcome: outcome, reason: reason?.text,
                bytes: bytes, internalError: internalError))
    }
}

/// Why a task could not be registered.
public enum TaskRegistrationError: Error, Sendable, Hashable {
    /// A task with this name is already registered; use ``BridgeRouter/replace(_:)-(BridgeTask)``.
    case duplicateName(String)
    /// Task names must not be empty.
    case emptyName
}
