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
    /// The byte transport attached to this router's page, if any: where `Data` in a call's result
    /// or progress goes (``BinaryOutlet``).
    let binaryOutlet = BinaryOutlet()

    /// Creates a router.
    /// - Parameter configuration: policy, limits and default timeout.
    public init(configuration: BridgeConfiguration = BridgeConfiguration()) {
        self.configuration = configuration
        decoder = InboundDecoder(limits: configuration.limits, policy: configuration.policy)
        fireAndForget = FireAndForgetQueue(limit: configuration.limits.maxPendingCalls)
        budget = ByteBudget(limit: configuration.limits.maxHeldBytes)
        state.withLock {
            $0.refusalPacing = RefusalPacing(
                burst: configuration.limits.refusalBurst, perSecond: configuration.limits.refusalsPerSecond)
            $0.outboundWindow = OutboundWindow(size: configuration.limits.maxOutboundInFlight)
        }
    }

    /// The one inbound decoder (``InboundDecoder``), with this router's limits and policy.
    let decoder: InboundDecoder

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
        answerHeldRefusals()
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
    ///   (use ``replace(_:)-(BridgeTask)`` to swap it), ``TaskRegistrationError/emptyName`` for `""`,
    ///   ``TaskRegistrationError/misdeclaredRequirement(task:property:expectedType:)`` for a stored
    ///   `policy`, `timeout`, `version` or `execution` of another type than the requirement's
    ///   (which Swift would silently leave to the default).
    @inlinable
    public func register(_ task: some BridgeTask) throws {
        if let error = TaskRegistrationError.misdeclaredRequirement(in: task) { throw error }
        try register(erased: AnyBridgeTask(task))
    }

    /// Registers a ``SynchronousBridgeTask`` under its name (see ``register(_:)-(BridgeTask)``).
    ///
    /// `@inlinable`, like the general form: the task's one-pass step (decode, run, encode) is
    /// compiled with its own types where it is registered (docs/performance.md, "SynchronousStep").
    /// - Throws: as ``register(_:)-(BridgeTask)``.
    @inlinable
    public func register(_ task: some SynchronousBridgeTask) throws {
        if let error = TaskRegistrationError.misdeclaredRequirement(in: task) { throw error }
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
    /// task they started with. A task that ``register(_:)-(BridgeTask)`` would refuse for a
    /// misdeclared requirement (``TaskRegistrationError/misdeclaredRequirement(task:property:expectedType:)``)
    /// stops a debug build here (`assertionFailure`); a release build registers it as Swift sees it.
    /// - Returns: `true` when a task was replaced, `false` when the name was new.
    @discardableResult
    public func replace(_ task: some BridgeTask) -> Bool {
        if let error = TaskRegistrationError.misdeclaredRequirement(in: task) { assertionFailure("\(error)") }
        return replace(erased: AnyBridgeTask(task))
    }

    /// Registers a ``SynchronousBridgeTask``, replacing any task with the same name (see
    /// ``replace(_:)-(BridgeTask)``), with its one-pass step compiled for its own types.
    /// - Returns: `true` when a task was replaced, `false` when the name was new.
    @inlinable
    @discardableResult
    public func replace(_ task: some SynchronousBridgeTask) -> Bool {
        if let error = TaskRegistrationError.misdeclaredRequirement(in: task) { assertionFailure("\(error)") }
        return replace(erased: AnyBridgeTask(task))
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

    /// The document the latest document notice named (``pageDidAnnounceDocument(_:origin:)``), `nil`
    /// before one or after a commit that no notice followed yet.
    var announcedDocument: String? {
        state.withLock { $0.document }
    }

    /// How many scripts wait for their document to be named (``DocumentWait``).
    package var heldScriptCount: Int {
        state.withLock { $0.documentWait.count }
    }

    /// How long a script waits at most for the cancels of native-to-page calls before it
    /// (``CancelOrder/limit``).
    package var cancelWaitLimit: Duration {
        get { state.withLock { $0.cancelOrder.limit } }
        set { state.withLock { $0.cancelOrder.limit = newValue } }
    }

    /// How long after a commit scripts wait for the document's notice (``DocumentWait/limit``);
    /// from the next commit on.
    package var documentWaitLimit: Duration {
        get { state.withLock { $0.documentWait.limit } }
        set { state.withLock { $0.documentWait.limit = newValue } }
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
        startGeneration(document: nil)
    }

    /// Tells the router which document is on screen: call it with the id of each document
    /// notice (`js/webbridge-document.js`, ``WebBridgeDocumentNotice``), posted at document start
    /// and again when the back-forward cache restores the document. Any thread.
    ///
    /// The first notice after a commit names the committed document (the generation the commit
    /// started goes on); a notice of the document already named changes nothing (a restore the
    /// host reported as a commit); a notice of another document starts a new generation, as
    /// ``pageDidCommitNavigation()`` does (a document WebKit reported no commit for, a
    /// `javascript:` URL's result). Scripts of a generation whose document is named are built for
    /// that document only (``PageFunction/deliver(toDocument:)``) when the channel can evaluate
    /// them in the notice's world (``PageChannel/evaluateForDocument``): one on its way when
    /// another document commits reaches nobody.
    ///
    /// - Parameters:
    ///   - id: the notice's `document`; an id that is not 32 lowercase hexadecimal digits is taken
    ///     as a notice of an unknown document (a new generation, no document named).
    ///   - origin: the document's security origin as the notice tells it (its `origin`, read in
    ///     the notice's world), `nil` for an opaque origin or none. With the byte transport
    ///     attached, an event's `Data` reaches this document as bytes when its origin is one the
    ///     router's policy admits (``emit(_:data:)-(_,EncodableSendable)``); a later notice of the same
    ///     document keeps the origin the first one told.
    public func pageDidAnnounceDocument(_ id: String, origin: SecurityOrigin? = nil) {
        let valid = PageFunction.isDocumentID(id)
        let (startsGeneration, action) = state.withLock { state -> (Bool, DocumentWait<HeldScript>.Action) in
            guard valid else { return (true, .none) }
            if state.document == nil {
                state.document = id
                state.documentOrigin = origin
                return (false, state.documentWait.documentNamed())
            }
            return (state.document != id, .none)
        }
        perform(action)
        if startsGeneration { startGeneration(document: valid ? id : nil, origin: valid ? origin : nil) }
    }

    /// Starts a new page generation whose document is `document`, of `origin` (see
    /// ``pageDidCommitNavigation()``).
    private func startGeneration(document: String?, origin: SecurityOrigin? = nil) {
        let (calls, pageCalls, generation, observers, replaced, cancelWaiters) = state.withLock { state in
            state.startGeneration()
            state.document = document
            state.documentOrigin = origin
            return (
                state.settleAllCalls(.navigationCommitted), state.takeAllPageCalls(), state.generation,
                state.generationObservers.sorted { $0.key < $1.key }.map(\.value),
                state.documentWait.generationStarted(documentNamed: document != nil, at: .now),
                state.cancelOrder.generationStarted(state.generation)
            )
        }
        // Scripts that waited for the replaced generation's document: their senders find it gone.
        for held in replaced { held.sender.resume(returning: nil) }
        for waiter in cancelWaiters { waiter.resume() }
        fireAndForget.cancel(before: generation)
        for observer in observers { observer() }
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

    /// Calls `observer` after every new page generation (``pageDidCommitNavigation()``), on the
    /// thread that reported the commit, outside the router's lock. The byte transport
    /// (``BinaryTransfers``) ends the old document's transfers this way, so no host has to tell
    /// it about commits separately.
    /// - Returns: an id for ``removeGenerationObserver(_:)``.
    package func addGenerationObserver(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextGenerationObserverID += 1
            state.generationObservers[state.nextGenerationObserverID] = observer
            return state.nextGenerationObserverID
        }
    }

    /// Stops calling the observer `id` (from ``addGenerationObserver(_:)``); an unknown id is ignored.
    package func removeGenerationObserver(_ id: Int) {
        _ = state.withLock { $0.generationObservers.removeValue(forKey: id) }
    }

    /// Closes the router: pending calls settle with `unavailable` (delivered while the channel
    /// is still connected), tasks are cancelled (fire-and-forget calls too; queued ones never
    /// start), the channel is dropped, and later messages are answered with `unavailable`.
    /// Idempotent.
    public func close() async {
        let (calls, pageCalls, channel, action, draining, cancelWaiters) = state.withLock { state in
            let draining: UInt64? = state.documentWait.phase == .draining ? state.documentWait.epoch : nil
            let result = (
                state.settleAllCalls(.routerClosed), state.takeAllPageCalls(), state.channel,
                state.documentWait.closed(channel: state.channel), draining, state.cancelOrder.closed()
            )
            state.isClosed = true
            state.channel = nil
            return result
        }
        // Refused senders' answers held for their turn go now (``RefusalPacing``).
        answerHeldRefusals()
        // Progress and events waiting for a place go now and find no channel (``OutboundWindow``).
        openOutboundWindow()
        // Scripts waiting for cancels go now: close() waits for no engine.
        for waiter in cancelWaiters { waiter.resume() }
        // Scripts that waited for the document go out first, through the channel that was connected.
        if case .drain(let epoch) = action { await drainHeldScripts(epoch: epoch) }
        // A flusher the notice started is still sending them: they go out before the final replies.
        if let draining {
            await withCheckedContinuation { waiter in
                let registered = state.withLock { $0.documentWait.waitForDrainEnd(epoch: draining, waiter) }
                if !registered { waiter.resume() }
            }
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
        // One rule for every record: the task name when known, else nil (never ""). A name the
        // page sent is kept as an error repeats it (at most 256 bytes): the app's observer keeps
        // what it is given, and an unknown task's name is whatever the page wrote.
        observer(
            TrafficRecord(
                direction: direction, kind: kind, id: id.map(BridgeError.excerpt),
                task: task.flatMap { $0.isEmpty ? nil : BridgeError.excerpt($0) }, outcome: outcome, reason: reason,
                bytes: bytes, internalError: internalError))
    }
}

extension BridgeRouter {
    /// Handles one script message from the page. Never throws and never traps, whatever the
    /// body (field case R13); every outcome is a reply, a log record, or both.
    ///
    /// The body is checked for size and depth, its envelope read and checked against the access
    /// policy, and the task is started where it asks (``TaskExecution``); a
    /// ``SynchronousBridgeTask`` runs and is answered before this returns. The options are
    /// decoded into the task's `Options` type where the task runs: by a synchronous task on the
    /// calling thread, by an asynchronous task's Swift task (for a ``TaskExecution/concurrent``
    /// one, off the calling thread, so a large payload does not hold up the main thread). A
    /// message that is not a plain call envelope is decoded whole on the calling thread.
    ///
    /// - Parameters:
    ///   - body: the message as the engine delivered it.
    ///   - source: the sending frame, as the engine (not the page) reports it.
    ///   - replyHandler: the engine's structured reply path for this message, if it has one.
    ///     The router always answers it exactly once (see ``ReplyHandler``).
    public func receive(_ body: MessageBody, from source: MessageSource, replyHandler: ReplyHandler? = nil) {
        switch body {
        case .absent:
            return reject(
                id: nil, .invalidMessage("The message has no body."), bytes: 0, source: source,
                replyHandler: replyHandler)
        case .string(var string):
            // The string's own UTF-8 storage, not a copy (a bridged string is made contiguous once),
            // kept by a call whose work decodes the options.
            string.makeContiguousUTF8()
            let body = CallBody.string(string)
            body.withBytes { handle($0, body: body, from: source, replyHandler: replyHandler) }
        case .json(let data):
            guard let unwrapped = Self.unwrapJSONString(data) else {
                return reject(
                    id: nil, .invalidMessage("The body is not valid JSON."), bytes: data.count, source: source,
                    replyHandler: replyHandler)
            }
            let body = CallBody.data(unwrapped)
            body.withBytes { handle($0, body: body, from: source, replyHandler: replyHandler) }
        }
    }

    /// Routes one body: `text` are the bytes of `body`, only read during the call. The one
    /// decoder (``InboundDecoder``) says by which case the message is admitted
    /// (``admit(_:text:body:from:replyHandler:)``).
    ///
    /// A ``RawJSON`` option of a ``SynchronousBridgeTask`` is a view of `body` when it is `Data`
    /// instead of a copy.
    private func handle(
        _ text: UnsafeBufferPointer<UInt8>, body: CallBody, from source: MessageSource,
        replyHandler: ReplyHandler?
    ) {
        admit(
            decoder.admission(of: text, body: body, from: source, state: state), text: text, body: body,
            from: source, replyHandler: replyHandler)
    }

    /// Acts on one admission case of a message (``InboundAdmission``): `text` are the bytes of
    /// `body`, only read during the call.
    private func admit(
        _ admission: InboundAdmission, text: UnsafeBufferPointer<UInt8>, body: CallBody, from source: MessageSource,
        replyHandler: ReplyHandler?
    ) {
        switch admission {
        case .deferredCall(let id, let taskName, let prepared):
            startCall(
                id: id, taskName: taskName, prepared, from: source, replyHandler: replyHandler, bytes: text.count)
        case .synchronousCall(let call):
            // Options that do not decode: nothing ran, and the decoder says how to answer.
            if let refusal = respondSynchronously(
                call, in: text, owner: body.data, source: source, replyHandler: replyHandler)
            {
                admit(refusal, text: text, body: body, from: source, replyHandler: replyHandler)
            }
        case .message(let message):
            dispatch(message, bytes: text.count, from: source, replyHandler: replyHandler)
        case .unreadable(let id, let error):
            rejectUnreadable(id: id, error, bytes: text.count, source: source, replyHandler: replyHandler)
        case .closed(let id, let taskName):
            reject(
                id: id, .unavailable("The router was closed."), bytes: text.count, source: source,
                replyHandler: replyHandler, task: taskName)
        }
    }

    /// Acts on a decoded message (``InboundAdmission/message(_:)``). Not inlined: the fast scan's
    /// calls of tasks with an id never come here (docs/performance.md, "dispatch").
    @inline(never)
    private func dispatch(
        _ message: InboundMessage, bytes: Int, from source: MessageSource, replyHandler: ReplyHandler?
    ) {
        switch message {
        case .invalid(let id, let error):
            rejectUnreadable(id: id, error, bytes: bytes, source: source, replyHandler: replyHandler)
        case .cancel(let id, let timedOut):
            pacedReplyHandler(replyHandler, for: source)?.reply(nil)
            cancelCall(id, timedOut: timedOut, from: source)
        case .reply(let id, let result):
            pacedReplyHandler(replyHandler, for: source)?.reply(nil)
            settlePageCall(id, result: result, from: source, bytes: bytes)
        case .sync:
            pacedReplyHandler(replyHandler, for: source)?.reply(nil)
        case .call(let call):
            start(call, from: source, replyHandler: replyHandler, bytes: bytes)
        }
    }

    /// Answers a message whose host read only its head (see ``HeadOnlyReason``), for the call
    /// the head names, as if the whole body had arrived: `forbidden` when no policy admits the
    /// sender, or none did when the host read it (``HeadOnlyReason/senderNotAdmitted``), else
    /// `payload_too_large` (a page answer to a native-to-page call fails that call). Any thread.
    /// - Parameters:
    ///   - head: the body's first characters (a kilobyte is plenty for the shim's envelope, whose
    ///     `id` comes before the options).
    ///   - byteCount: the body's size as the host measured it, at least its UTF-8 byte count (a
    ///     JavaScript string's length in UTF-16 code units is never more).
    ///   - reason: why the host read only the head.
    ///   - source: the sending frame, as the engine reports it.
    ///   - replyHandler: the message's reply path, answered exactly once.
    public func receiveHead(
        _ head: String, byteCount: Int, reason: HeadOnlyReason, from source: MessageSource,
        replyHandler: ReplyHandler? = nil
    ) {
        let refusal =
            senderRefusal(source)
            ?? (reason == .senderNotAdmitted
                ? (configuration.policy.refusal(for: source)
                    ?? "no policy admitted the origin when the app read the message")
                : nil)
        let error: BridgeError =
            if let refusal {
                .forbidden(reason: refusal, origin: source.origin?.description)
            } else {
                .payloadTooLarge(bytes: byteCount, limit: configuration.limits.maxPayloadBytes)
            }
        var head = head
        let id = head.withUTF8 { BodyScan($0).id }
        rejectUnreadable(
            id: InboundDecoder.isUsable(id) ? id : nil, error, bytes: byteCount, source: source,
            replyHandler: replyHandler)
    }

    /// Whether the router's policy or some task's own policy admits `source`. A sender no policy
    /// admits is refused `forbidden` whatever it sends, so a host may leave a large body from it
    /// unread and hand over only its head (``receiveHead(_:byteCount:reason:from:replyHandler:)``).
    /// Any thread.
    public func admitsSender(_ source: MessageSource) -> Bool {
        senderRefusal(source) == nil
    }

    /// Why no policy admits `source` (the router's policy's reason), or `nil` when one does.
    func senderRefusal(_ source: MessageSource) -> String? {
        decoder.senderRefusal(source, state: state)
    }

    /// A body that is itself a JSON string carries the message as its content (R15).
    static func unwrapJSONString(_ data: Data) -> Data? {
        guard let first = data.first(where: { $0 > 0x20 }) else { return nil }
        guard first == UInt8(ascii: "\"") else { return data }
        guard let string = try? BridgeJSON.decode(String.self, from: data) else { return nil }
        return Data(string.utf8)
    }

    /// Answers a message that cannot run: with an error reply when it named an id, otherwise
    /// only a log record (field case R13: no id, nothing to answer).
    @inline(never)
    func reject(
        id: String?, _ error: BridgeError, bytes: Int, source: MessageSource, replyHandler: ReplyHandler?,
        task: String? = nil, reason: TrafficReason? = nil
    ) {
        // A refusal to a sender the router's policy does not admit waits its turn (RefusalPacing).
        let replyHandler = pacedReplyHandler(replyHandler, for: source)
        record(.inbound, .call, id: id, task: task, outcome: error.code, reason: reason, bytes: bytes)
        guard let id else {
            replyHandler?.reply(nil)
            return
        }
        let (generation, hasChannel) = state.withLock { ($0.generation, $0.channel != nil) }
        let route = CallStateMachine.route(
            replyHandler: replyHandler, source: source, hasChannel: hasChannel,
            refused: error.code == "forbidden")
        if case .script = route { replyHandler?.reply(nil) }
        // Answered before `receive` returns where no suspension is needed (a reply handler), so
        // the refusal cannot wait behind a busy cooperative pool, nor be overtaken by `close()`;
        // a script is sent from a new task.
        if let outgoing = writeFinalReply(
            json: .failure(error), id: id, task: task ?? "", route: route, generation: generation)
        {
            Task { [self] in await send(outgoing) }
        }
    }

    /// Starts a decoded call: answers it with its error when it cannot run, runs it fire and
    /// forget when it has no id, otherwise admits it (``startCall(id:taskName:_:from:replyHandler:bytes:)``).
    private func start(_ call: InboundCall, from source: MessageSource, replyHandler: ReplyHandler?, bytes: Int) {
        let prepared: PreparedCall
        switch call.prepared {
        case .failure(let error):
            return reject(
                id: call.id, error, bytes: bytes, source: source, replyHandler: replyHandler,
                task: call.taskName, reason: call.refusal.map(TrafficReason.refused))
        case .success(let value):
            prepared = value
        }
        guard let id = call.id else {
            return startFireAndForget(call.taskName, prepared, from: source, replyHandler: replyHandler, bytes: bytes)
        }
        startCall(id: id, taskName: call.taskName, prepared, from: source, replyHandler: replyHandler, bytes: bytes)
    }

    /// Admits the call `id` of `taskName` (unless the router is closed, the id is in use or too
    /// many calls are pending: then it is answered with that error) and starts its work where
    /// its task asks (``TaskExecution``).
    private func startCall(
        id: String, taskName: String, _ prepared: PreparedCall, from source: MessageSource,
        replyHandler: ReplyHandler?, bytes: Int
    ) {
        let limits = configuration.limits
        let timeout = prepared.task.timeout ?? configuration.defaultTimeout
        // Decided under the lock that close() takes too: a call admitted after close() would never
        // settle, and a reply handler released here must be answered here (race with close()).
        // A concrete enum, not a `Result` of a tuple: that one goes through the runtime's
        // generic metadata and value witnesses on every call.
        enum Admission {
            case admitted(PendingCall, observer: (@Sendable (TrafficRecord) -> Void)?)
            case refused(BridgeError)
        }
        // Charged until the call's work ends (``runWork(_:)``), refused when over the budget.
        guard budget.reserve(bytes, for: ByteBudget.Share(source)) else {
            return reject(
                id: id, .memoryBudgetExceeded(bytes: bytes, limit: limits.maxHeldBytes), bytes: bytes, source: source,
                replyHandler: replyHandler, task: taskName)
        }
        let admission: Admission = state.withLock { state in
            if state.isClosed { return .refused(.unavailable("The router was closed.")) }
            // Main-frame replies go by script, in order after progress; other calls, any call
            // while no channel is connected, and paths that carry final replies keep the
            // structured reply path for the final reply. Decided here, once.
            let route = CallStateMachine.route(
                replyHandler: replyHandler, source: source, hasChannel: state.channel != nil,
                refused: false)
            let entry = PendingCall(
                id: id, taskName: taskName, generation: state.generation, source: source, route: route,
                progressLimit: limits.maxProgressPerCall, router: self, work: prepared,
                heldBytes: bytes)
            switch state.admit(entry, as: id, limit: limits.maxPendingCalls) {
            case .duplicateID?: return .refused(.invalidMessage("The id \"\(id)\" is already in use."))
            case .tooManyPendingCalls?: return .refused(.tooManyPendingCalls(limit: limits.maxPendingCalls))
            case nil: break
            }
            if let timeout {
                entry.machine.timer = startTimer(for: entry, after: timeout)
            }
            return .admitted(entry, observer: state.observer)
        }
        let entry: PendingCall
        switch admission {
        case .refused(let error):
            budget.release(bytes, for: ByteBudget.Share(source))
            // Options its work would have decoded: if they do not decode, the page gets that
            // error, as a call whose options were decoded on arrival.
            let refusal = prepared.input.optionsError(for: prepared.task) ?? error
            return reject(id: id, refusal, bytes: bytes, source: source, replyHandler: replyHandler, task: taskName)
        case .admitted(let admitted, let observer):
            entry = admitted
            if admitted.replyHandler == nil { replyHandler?.reply(nil) }
            observer?(
                TrafficRecord(
                    direction: .inbound, kind: .call, id: id, task: taskName, outcome: nil,
                    reason: nil, bytes: bytes))
        }
        // Started outside the lock: an immediate task runs (and may settle) before it returns.
        let work = startWork(entry, execution: prepared.task.execution)
        // Whoever settles the call later cancels the work; when a cancel, a timeout, a navigation
        // or close() came first, the machine says to cancel it now. A call its work settled
        // already (an immediate task that never suspended) needs no cancel at all.
        attachWork(work, to: entry)
    }

    /// Starts the timer that settles `call` with `timeout` after `timeout`; not inlined (a call
    /// without a timeout, the default, never runs this code).
    @inline(never)
    private func startTimer(for call: PendingCall, after timeout: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.finish(call, .failure(.timeout(seconds: timeout.seconds)), by: .timedOut)
        }
    }

    /// Starts the work of an admitted call where its task asks (``TaskExecution``): the work
    /// (``runWork(_:)``) captures only the call, which holds everything it needs. Each start
    /// writes its closure out (docs/performance.md, "startWork").
    private func startWork(_ call: PendingCall, execution: TaskExecution) -> Task<Void, Never> {
        // `Task.immediate` needs the Swift 6.2 compiler; with 6.1 (Xcode 16.3, 16.4) an immediate
        // task starts like a concurrent one, as on OS versions without it.
        #if compiler(>=6.2)
        if execution == .immediate,
            #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
        {
            return Self.startImmediately(call)
        }
        #endif
        return Task { await Self.runWork(call) }
    }

    /// The work of an admitted call: takes the task and its input out of the call, decodes the
    /// options (``CallInput``), runs the task and settles the call with its result or error.
    ///
    /// Neither the body nor the options nor the result outlive their use: the body is released
    /// once the options are decoded, the options when the task returns, and the result is handed
    /// on to ``settle(_:_:by:)`` without a copy, released once the reply is encoded, so a large
    /// payload is not kept alive while the engine copies the reply. The router is reached through
    /// the call's weak reference: the work keeps neither the router nor its page alive.
    private static func runWork(_ call: PendingCall) async {
        let outcome: Result<any Encodable & Sendable, BridgeError>
        do {
            let (task, options) = try takeOptions(of: call)
            outcome = .success(try await task.run(consume options, CallContext(call: call)))
        } catch {
            outcome = .failure(Self.bridgeError(error))
        }
        // Settled without a further `async` frame; only a reply that goes by script waits.
        if let outgoing = settleFromWork(call, consume outcome) {
            // The reply script waits for the engine: held, whatever the budget, until sent.
            let router = call.router
            router?.budget.charge(outgoing.bytes)
            await router?.send(outgoing)
            router?.budget.release(outgoing.bytes, for: .mainFrame)
        }
        // The body, the options and the result are gone.
        call.router?.budget.release(call.heldBytes, for: ByteBudget.Share(call.source))
    }

    /// The task of `call` and its decoded options, taken out of the call (``runWork(_:)``). Not
    /// inlined, like ``settleFromWork(_:_:)`` (docs/performance.md, "takeOptions").
    /// - Throws: `cancelled` when the work was taken already; the decoding error of
    ///   ``CallInput/options(for:)``.
    @inline(never)
    private static func takeOptions(of call: PendingCall) throws -> (AnyBridgeTask, any Sendable) {
        guard let work = call.takeWork() else { throw BridgeError.cancelled("The call has already run.") }
        return (work.task, try work.input.options(for: work.task))
    }

    /// Settles `call` with its work's `outcome` (``settle(_:_:by:)``); not inlined (see
    /// ``takeOptions(of:)``).
    @inline(never)
    private static func settleFromWork(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>
    )
        -> OutgoingScript?
    {
        call.router?.settle(call, consume outcome, by: .workFinished)
    }

    #if compiler(>=6.2)
    /// Starts the work of `call` with `Task.immediate` (SE-0472) in a form the optimizer inlines:
    /// the one-pass loop is deliberate (docs/performance.md, "startImmediately").
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    private static func startImmediately(_ call: PendingCall) -> Task<Void, Never> {
        var task: Task<Void, Never>?
        for _ in 0..<1 { task = Task.immediate { await runWork(call) } }
        return task ?? Task { await runWork(call) }
    }
    #endif

    /// Cancels the call pending as `id`, if `source` made it in the current page; the call found
    /// now is the one cancelled, even if it settles and its id is reused before the cancel lands.
    /// A call the page's time limit ended (`timedOut`) settles `timeout`, else `cancelled`; the
    /// traffic log's cancel record names the call's task.
    private func cancelCall(_ id: String, timedOut: Bool, from source: MessageSource) {
        let matching: PendingCall? = state.withLock { state in
            guard let call = state.calls[id], call.source == source, call.generation == state.generation else {
                return nil
            }
            return call
        }
        record(.inbound, .cancel, id: id, task: matching?.taskName, outcome: matching == nil ? "dropped" : nil)
        guard let matching else { return }
        let error: BridgeError = timedOut ? .pageTimeLimitPassed() : .cancelled("The page cancelled the call.")
        // Settled now, in the order of the page's messages: a message after the cancel (one that
        // ends the run and closes the router, say) finds the call settled `cancelled`. Only a
        // reply that goes by script is sent from a task.
        if let outgoing = settle(matching, .failure(error), by: .pageCancelled) {
            Task { await send(outgoing) }
        }
    }

    /// Attaches the work of `call` (``CallStateMachine/Event/workAttached``) and cancels it when
    /// the call settled before, by someone other than its work.
    func attachWork(_ work: Task<Void, Never>, to call: PendingCall) {
        let action = state.withLock { _ in call.machine.handle(.workAttached, work: work) }
        if case .cancelWork(let work) = action { work.cancel() }
    }

    /// Maps any error a task throws to the error the page sees (``BridgeError/pageFacing(_:code:genericMessage:)``):
    /// only a ``BridgeError`` or a ``PageFacingError`` brings its own text; any other error is
    /// `task_failed` with a generic message, its description kept for the log.
    @usableFromInline
    static func bridgeError(_ error: any Error) -> BridgeError {
        BridgeError.pageFacing(error)
    }
}

extension Duration {
    /// The duration in seconds, for messages.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

extension BridgeRouter {
    /// A progress function for calls that cannot send progress (``SynchronousBridgeTask``).
    /// Static, so a call's context allocates nothing for it.
    static let noProgress: @Sendable (any Encodable & Sendable) async throws -> Void = { _ in
        throw BridgeError.cancelled("A synchronous task cannot send progress: its call settles when it returns.")
    }

    /// Runs a plain call of a ``SynchronousBridgeTask`` at once, on the calling thread, and
    /// writes its final reply before returning (see ``SynchronousBridgeTask`` for what differs
    /// from an asynchronous call). The caller has checked the access policy.
    ///
    /// No pending-call entry is made: the call settles here, exactly once, so no cancel,
    /// timeout, navigation or ``close()`` can reach it; its reply goes through the channel that
    /// was connected when it was admitted, so a ``close()`` while the task runs does not lose it.
    /// The admission still refuses a call after ``close()`` (`unavailable`) and an id a pending
    /// call uses (`invalid_message`), under the lock `close()` takes. The reply takes the same
    /// route as an asynchronous call's final reply (``writeFinalReply(json:id:task:route:generation:channel:binary:afterCancels:)``):
    /// the reply handler when it carries final replies (answered before this returns), the call
    /// is from a subframe or no channel is connected; otherwise a script, sent from a new Swift task.
    ///
    /// - Parameters:
    ///   - call: the scanned call (``InboundAdmission/synchronousCall(_:)``).
    ///   - text: the body; `owner`, when given, is the `Data` holding it (see `handle`).
    /// - Returns: `nil` when the call was answered; when its options do not decode (nothing ran
    ///   and nothing was answered), the admission case that answers it
    ///   (``InboundDecoder/optionsRefusal(_:id:taskName:)``).
    func respondSynchronously(
        _ call: SynchronousCall, in text: UnsafeBufferPointer<UInt8>, owner: Data?, source: MessageSource,
        replyHandler: ReplyHandler?
    ) -> InboundAdmission? {
        let id = call.id
        let options: Data
        if let range = call.options, let base = text.baseAddress, !range.isEmpty {
            let start = UnsafeMutableRawPointer(mutating: base + range.lowerBound)
            if !call.task.takesRawJSON {
                // No copy: a decoder only reads the body's own bytes while this call runs.
                options = Data(bytesNoCopy: start, count: range.count, deallocator: .none)
            } else if let owner {
                // RawJSON keeps its options: a view of the body's storage, which the view keeps alive.
                options = Data(bytesNoCopy: start, count: range.count, deallocator: .custom { _, _ in _ = owner })
            } else {
                options = Data(UnsafeRawBufferPointer(start: start, count: range.count))
            }
        } else {
            options = Self.nullOptions
        }
        var refusal: BridgeError?
        var generation: UInt64 = 0
        // The channel connected when the call was admitted: the reply goes to the page that asked,
        // even if close() drops the channel while the task runs.
        var channel: PageChannel?
        var observer: (@Sendable (TrafficRecord) -> Void)?
        // The cancels of native-to-page calls in flight, which a reply handler's answer follows.
        var cancelBarrier: UInt64?
        let taskName = call.taskName
        let bytes = text.count
        // The downloads the result's `Data` became (``BinaryOutlet``), listed in the reply's envelope.
        var written: [String] = []
        let outcome = call.respond(
            options,
            {
                refusal = state.withLock { state in
                    if state.isClosed { return .unavailable("The router was closed.") }
                    if state.calls[id] != nil { return .invalidMessage("The id \"\(id)\" is already in use.") }
                    generation = state.generation
                    channel = state.channel
                    observer = state.observer
                    cancelBarrier = state.cancelOrder.barrier(generation: state.generation)
                    return nil
                }
                guard refusal == nil else { return nil }
                observer?(
                    TrafficRecord(
                        direction: .inbound, kind: .call, id: id, task: taskName, outcome: nil,
                        reason: nil,
                        bytes: bytes))
                return CallContext(
                    callID: id, taskName: taskName, source: source, pageGeneration: generation,
                    progress: Self.noProgress)
            },
            { context, encode in
                let (json, tokens) = try binaryOutlet.write(for: context, encode)
                written = tokens
                return json
            })
        let result: Result<Data, BridgeError>
        switch outcome {
        case .undecodable(let error):
            return InboundDecoder.optionsRefusal(error, id: id, taskName: taskName)
        case .notAdmitted:
            reject(
                id: id, refusal ?? .unavailable("The router was closed."), bytes: bytes, source: source,
                replyHandler: replyHandler, task: taskName)
            return nil
        case .result(let data):
            result = .success(data)
        case .failure(let error):
            result = .failure(error)
        }
        sendSynchronousReply(
            result, id: id, taskName: taskName, source: source, replyHandler: replyHandler,
            generation: generation, channel: channel, binary: written, afterCancels: cancelBarrier)
        return nil
    }

    private static let nullOptions = Data("null".utf8)

    /// Writes and sends the final reply of a synchronous call (see ``respondSynchronously``) by
    /// the same route as an asynchronous call's (``writeFinalReply(json:id:task:route:generation:channel:binary:afterCancels:)``):
    /// the reply handler when it carries final replies, the call is from a subframe or no channel
    /// was connected; otherwise a script, sent from a new Swift task through the channel that was
    /// connected when the call was admitted.
    private func sendSynchronousReply(
        _ result: Result<Data, BridgeError>, id: String, taskName: String,
        source: MessageSource, replyHandler: ReplyHandler?, generation: UInt64, channel: PageChannel?,
        binary: [String], afterCancels: UInt64?
    ) {
        let route = CallStateMachine.route(
            replyHandler: replyHandler, source: source, hasChannel: channel != nil, refused: false)
        if case .script = route { replyHandler?.reply(nil) }
        if let outgoing = writeFinalReply(
            json: result, id: id, task: taskName, route: route, generation: generation, channel: channel,
            binary: binary, afterCancels: afterCancels)
        {
            Task { await send(outgoing) }
        }
    }
}

extension BridgeRouter {
    /// Answers a message that could not be read (too large, too deep, not JSON, not a protocol
    /// message).
    ///
    /// When it comes from the main frame and names an unanswered native-to-page call, it was that
    /// call's answer: the call fails with `error` at once (instead of waiting for its timeout, or
    /// forever without one) and the page gets no reply for an id it never used. Anything else is
    /// answered like any refused message.
    @inline(never)
    func rejectUnreadable(
        id: String?, _ error: BridgeError, bytes: Int, source: MessageSource, replyHandler: ReplyHandler?
    ) {
        if let id, source.isMainFrame,
            state.withLock({ state in state.pageCalls[id].map { $0.generation == state.generation } ?? false })
        {
            replyHandler?.reply(nil)
            record(.inbound, .reply, id: id, task: nil, outcome: error.code, bytes: bytes)
            failPageCall(id, error, notifyPage: false)
            return
        }
        reject(id: id, error, bytes: bytes, source: source, replyHandler: replyHandler)
    }
}

extension BridgeRouter {
    /// The registered tasks with the versions they declare, and the revision of that list: what
    /// `WebBridge.supports` and `WebBridge.tasks()` answer from (``BridgeTaskList``). Any thread.
    public var taskList: BridgeTaskList {
        withTaskTable { $0.list }
    }

    /// Calls `observer` with the new list after every ``register(_:)-(BridgeTask)``, ``replace(_:)-(BridgeTask)`` (or their forms for synchronous tasks) and
    /// successful ``removeTask(named:)``, on the thread that made the change, in the order of
    /// the changes on that thread. Hosts use it to update the list they inject at document start.
    /// The observer must not block; it may run concurrently with itself when tasks change on
    /// several threads, so compare ``BridgeTaskList/revision`` to keep the newest.
    /// - Returns: an id for ``removeTaskListObserver(_:)``.
    @discardableResult
    public func addTaskListObserver(_ observer: @escaping @Sendable (BridgeTaskList) -> Void) -> Int {
        withTaskTable { table in
            table.nextObserverID += 1
            table.observers[table.nextObserverID] = observer
            return table.nextObserverID
        }
    }

    /// Stops calling the observer `id` (from ``addTaskListObserver(_:)``); an unknown id is ignored.
    public func removeTaskListObserver(_ id: Int) {
        _ = withTaskTable { $0.observers.removeValue(forKey: id) }
    }

    /// Tells the observers and the loaded page (a `tasks` message, docs/protocol.md) that the
    /// tasks changed. Without a connected page nothing is sent: the host's document-start script
    /// carries the list to the next document.
    func taskListDidChange() {
        let (list, observers) = withTaskTable { table in
            (table.list, table.observers.sorted { $0.key < $1.key }.map(\.value))
        }
        for observer in observers { observer(list) }
        guard state.withLock({ $0.channel != nil && !$0.isClosed }) else { return }
        let generation = pageGeneration
        let message = list.message
        let outgoing = OutgoingScript(
            script: PageScript.build(calling: .receive, json: message), bytes: message.count, kind: .tasks, id: nil,
            task: nil, generation: generation)
        Task { await self.send(outgoing) }
    }
}

extension BridgeRouter {
    /// Runs `body` on the task table, with the router's lock held.
    func withTaskTable<Result: Sendable>(_ body: (inout TaskTable) -> Result) -> Result {
        state.withLock { body(&$0.taskTable) }
    }
}

// MARK: The bytes held for the page

/// The bytes a router holds for its page, against ``BridgeLimits/maxHeldBytes``.
///
/// A call is charged its body's UTF-8 byte count when it is admitted and released when its work
/// ends (by then its options and result are gone); a fire-and-forget call from queueing until its
/// job ends; a final reply script waiting for the engine while it waits. One short lock per charge
/// and per release.
///
/// Subframes' calls together hold at most half of the budget, so the main frame always has the
/// other half: five allowed iframes, each within its relay's limits, held 62 calls of 1 MiB and
/// the main frame's call failed `memory_budget_exceeded` (attack 25, F4b). The same rule as the
/// WebKitGTK host's inbound budget, one step before it.
///
/// Thread safety: every method may be called from any thread.
final class ByteBudget: Sendable {
    /// Whose share bytes count against: the main frame's calls (and the reply scripts, which only
    /// the main frame gets) may use the whole budget, subframes' calls together half of it.
    enum Share: Sendable {
        case mainFrame
        case subframes

        /// The share of a message from `source`.
        init(_ source: MessageSource) {
            self = source.isMainFrame ? .mainFrame : .subframes
        }
    }

    /// The most bytes ``reserve(_:for:)`` admits.
    let limit: Int
    private let counts = Locked((held: 0, peak: 0, subframes: 0))

    init(limit: Int) {
        self.limit = limit
    }

    /// The bytes held now.
    var heldBytes: Int { counts.withLock { $0.held } }
    /// The most bytes held at once so far.
    var peakBytes: Int { counts.withLock { $0.peak } }

    /// Charges `bytes` to `share` when they fit: within ``limit``, and for ``Share/subframes``
    /// also within half of it for all subframes together.
    /// - Returns: `false`, charging nothing, when they do not fit.
    func reserve(_ bytes: Int, for share: Share) -> Bool {
        counts.withLock { counts in
            let (sum, overflow) = counts.held.addingReportingOverflow(bytes)
            guard !overflow, sum <= limit else { return false }
            if share == .subframes {
                let (subframes, overflow) = counts.subframes.addingReportingOverflow(bytes)
                guard !overflow, subframes <= limit / 2 else { return false }
                counts.subframes = subframes
            }
            counts.held = sum
            counts.peak = max(counts.peak, sum)
            return true
        }
    }

    /// Charges `bytes` whatever the budget: for what the router already holds and must keep (a
    /// reply its work produced); later reservations are refused until it is released.
    func charge(_ bytes: Int) {
        counts.withLock { counts in
            counts.held &+= bytes
            counts.peak = max(counts.peak, counts.held)
        }
    }

    /// Releases `bytes` charged before to `share` (``charge(_:)``: ``Share/mainFrame``).
    func release(_ bytes: Int, for share: Share) {
        counts.withLock { counts in
            counts.held &-= bytes
            if share == .subframes { counts.subframes &-= bytes }
        }
    }
}
