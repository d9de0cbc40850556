import Foundation

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

    /// Routes one body: `text` are the bytes of `body`, only read during the call.
    ///
    /// A plain call envelope (the shim's usual message) takes the fast path: ``CallEnvelopeScan``
    /// reads the envelope members in one pass and only the options go through `JSONDecoder`,
    /// where the task runs: a call of an asynchronous task keeps `body` and its work decodes the
    /// options (``CallInput``), reporting a failure as the general path would. Everything else,
    /// and every other fast-path failure, takes the general path (``BodyScan``, then
    /// ``InboundEnvelope`` decoding the whole body), which produces every error.
    ///
    /// A ``RawJSON`` option of a ``SynchronousBridgeTask`` is a view of `body` when it is `Data`
    /// instead of a copy.
    private func handle(
        _ text: UnsafeBufferPointer<UInt8>, body: CallBody, from source: MessageSource,
        replyHandler: ReplyHandler?
    ) {
        let limits = configuration.limits
        if text.count <= limits.maxPayloadBytes, let scan = CallEnvelopeScan(text) {
            if scan.depth > limits.maxDepth {
                return rejectUnreadable(
                    id: scan.id, .nestingTooDeep(limit: limits.maxDepth), bytes: text.count, source: source,
                    replyHandler: replyHandler)
            }
            let (task, isClosed) = state.withLock { ($0.taskTable.task(named: scan.task), $0.isClosed) }
            if isClosed {
                return reject(
                    id: scan.id, .unavailable("The router was closed."), bytes: text.count, source: source,
                    replyHandler: replyHandler, task: scan.task)
            }
            // A synchronous task answers in one step, before this returns (unless its options
            // do not decode: then the general path below reports the error).
            if let id = scan.id, let task, (task.policy ?? configuration.policy).refusal(for: source) == nil {
                guard let respond = task.respond else {
                    // An asynchronous task: its work decodes the options, where the task runs.
                    return startCall(
                        id: id, taskName: scan.task,
                        PreparedCall(task: task, input: .text(body, options: scan.options)),
                        from: source, replyHandler: replyHandler, bytes: text.count)
                }
                if respondSynchronously(
                    respond, task: task, scan: scan, id: id, in: text, owner: body.data, source: source,
                    replyHandler: replyHandler)
                {
                    return
                }
            }
            if case .call(let call)? = InboundEnvelope.fastCall(
                scan, in: text, task: task, source: source,
                policy: configuration.policy)
            {
                return start(call, from: source, replyHandler: replyHandler, bytes: text.count)
            }
        }
        handleGenerally(text, from: source, replyHandler: replyHandler)
    }

    /// The general path of ``handle(_:body:from:replyHandler:)``: every message that is not a
    /// plain call envelope, and every fast-path failure. Not inlined (docs/performance.md,
    /// "handleGenerally").
    @inline(never)
    private func handleGenerally(
        _ text: UnsafeBufferPointer<UInt8>, from source: MessageSource, replyHandler: ReplyHandler?
    ) {
        let limits = configuration.limits
        let scan = BodyScan(text)
        if text.count > limits.maxPayloadBytes {
            return rejectUnreadable(
                id: scan.id, .payloadTooLarge(bytes: text.count, limit: limits.maxPayloadBytes),
                bytes: text.count, source: source, replyHandler: replyHandler)
        }
        if scan.depth > limits.maxDepth {
            return rejectUnreadable(
                id: scan.id, .nestingTooDeep(limit: limits.maxDepth), bytes: text.count, source: source,
                replyHandler: replyHandler)
        }
        let (tasks, isClosed) = state.withLock { ($0.taskTable.tasks, $0.isClosed) }
        let message: InboundMessage
        do {
            message = try InboundEnvelope.decodeWhole(text, tasks: tasks, source: source, policy: configuration.policy)
        } catch {
            return rejectUnreadable(
                id: scan.id, .invalidMessage("The body is not valid JSON."), bytes: text.count, source: source,
                replyHandler: replyHandler)
        }
        switch message {
        case .invalid(let id, let error):
            rejectUnreadable(id: id, error, bytes: text.count, source: source, replyHandler: replyHandler)
        case .cancel(let id):
            replyHandler?.reply(nil)
            cancelCall(id, from: source)
        case .reply(let id, let result):
            replyHandler?.reply(nil)
            settlePageCall(id, result: result, from: source, bytes: text.count)
        case .call(let call) where isClosed:
            // Only calls are answered `unavailable`: a cancel or a reply after close names a call
            // that has already settled, and must not get a second final reply.
            reject(
                id: call.id, .unavailable("The router was closed."), bytes: text.count, source: source,
                replyHandler: replyHandler, task: call.taskName)
        case .call(let call):
            start(call, from: source, replyHandler: replyHandler, bytes: text.count)
        }
    }

    /// Answers a message that its host refused to copy because it is over
    /// ``BridgeLimits/maxPayloadBytes``: `payload_too_large` for the call its first characters
    /// name (a page answer to a native-to-page call fails that call), as if the whole body had
    /// arrived. For hosts that can see a body's length before its bytes cross into the app (the
    /// WebKitGTK relay measures the page's string and posts only its head). Any thread.
    /// - Parameters:
    ///   - head: the body's first characters (a kilobyte is plenty for the shim's envelope, whose
    ///     `id` comes before the options).
    ///   - byteCount: the body's size as the host measured it, at least its UTF-8 byte count (a
    ///     JavaScript string's length in UTF-16 code units is never more).
    ///   - source: the sending frame, as the engine reports it.
    ///   - replyHandler: the message's reply path, answered exactly once.
    public func refuseOversizedBody(
        head: String, byteCount: Int, from source: MessageSource, replyHandler: ReplyHandler? = nil
    ) {
        var head = head
        let id = head.withUTF8 { BodyScan($0).id }
        rejectUnreadable(
            id: id, .payloadTooLarge(bytes: byteCount, limit: configuration.limits.maxPayloadBytes), bytes: byteCount,
            source: source, replyHandler: replyHandler)
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
        guard budget.reserve(bytes) else {
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
            budget.release(bytes)
            // Options its work would have decoded: if they do not decode, the page gets that
            // error, as when options were decoded on arrival, before admission.
            let refusal = Self.optionsFailure(prepared, source: source, policy: configuration.policy) ?? error
            return reject(id: id, refusal, bytes: bytes, source: source, replyHandler: replyHandler, task: taskName)
        case .admitted(let admitted, let observer):
            entry = admitted
            if admitted.replyHandler == nil { replyHandler?.reply(nil) }
            observer?(
                TrafficRecord(
                    direction: .inbound, kind: TrafficKind.call.rawValue, id: id, task: taskName, outcome: nil,
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
            router?.budget.release(outgoing.bytes)
        }
        // The body, the options and the result are gone.
        call.router?.budget.release(call.heldBytes)
    }

    /// The task of `call` and its decoded options, taken out of the call (``runWork(_:)``). Not
    /// inlined, like ``settleFromWork(_:_:)`` (docs/performance.md, "takeOptions").
    /// - Throws: `cancelled` when the work was taken already; the decoding error of
    ///   ``CallInput/options(for:source:policy:)``.
    @inline(never)
    private static func takeOptions(of call: PendingCall) throws -> (AnyBridgeTask, any Sendable) {
        guard let work = call.takeWork() else { throw BridgeError.cancelled("The call has already run.") }
        // The router (a weak load) only when the options fail to decode, to report the error.
        return (
            work.task,
            try work.input.options(
                for: work.task, source: call.source,
                policy: call.router?.configuration.policy ?? AccessPolicy())
        )
    }

    /// The error of a refused call's options that its work would have decoded (``CallInput/text(_:options:)``),
    /// decoded now on the calling thread; `nil` when they decode or were decoded already. Only
    /// for calls refused at admission (a duplicate id, too many pending calls), which get the
    /// reply they got when options were decoded before admission.
    @inline(never)
    private static func optionsFailure(_ prepared: PreparedCall, source: MessageSource, policy: AccessPolicy)
        -> BridgeError?
    {
        guard case .text = prepared.input else { return nil }
        do {
            _ = try prepared.input.options(for: prepared.task, source: source, policy: policy)
            return nil
        } catch {
            return bridgeError(error)
        }
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
    private func cancelCall(_ id: String, from source: MessageSource) {
        let matching: PendingCall? = state.withLock { state in
            guard let call = state.calls[id], call.source == source, call.generation == state.generation else {
                return nil
            }
            return call
        }
        record(.inbound, .cancel, id: id, task: nil, outcome: matching == nil ? "dropped" : nil)
        guard let matching else { return }
        Task { await finish(matching, .failure(.cancelled("The page cancelled the call.")), by: .pageCancelled) }
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
