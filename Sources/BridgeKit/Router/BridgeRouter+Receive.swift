import Foundation

extension BridgeRouter {
    /// Handles one script message from the page. Never throws and never traps, whatever the
    /// body (field case R13); every outcome is a reply, a log record, or both.
    ///
    /// The body is checked for size and depth, decoded in one pass (envelope and the task's
    /// options together), checked against the access policy, and the task is started where it
    /// asks (``TaskExecution``); a ``SynchronousBridgeTask`` runs and is answered before this
    /// returns. Decoding happens on the calling thread.
    ///
    /// - Parameters:
    ///   - body: the message as the engine delivered it.
    ///   - source: the sending frame, as the engine (not the page) reports it.
    ///   - replyHandler: the engine's structured reply path for this message, if it has one.
    ///     The router always answers it exactly once (see ``ReplyHandler``).
    public func receive(_ body: MessageBody, from source: MessageSource, replyHandler: ReplyHandler? = nil) {
        switch body {
        case .absent:
            return reject(id: nil, .invalidMessage("The message has no body."), bytes: 0, source: source, replyHandler: replyHandler)
        case .string(var string):
            // The string's own UTF-8 storage, not a copy (a bridged string is made contiguous once).
            string.withUTF8 { handle($0, from: source, replyHandler: replyHandler) }
        case .json(let data):
            guard let unwrapped = Self.unwrapJSONString(data) else {
                return reject(id: nil, .invalidMessage("The body is not valid JSON."), bytes: data.count, source: source, replyHandler: replyHandler)
            }
            unwrapped.withUnsafeBytes {
                handle($0.bindMemory(to: UInt8.self), owner: unwrapped, from: source, replyHandler: replyHandler)
            }
        }
    }

    /// Routes one body. `text` is only read during the call.
    ///
    /// A plain call envelope (the shim's usual message) takes the fast path: ``CallEnvelopeScan``
    /// reads the envelope members in one pass and only the options go through `JSONDecoder`.
    /// Everything else, and every fast-path failure, takes the general path (``BodyScan``, then
    /// ``InboundEnvelope`` decoding the whole body), which produces every error.
    ///
    /// `owner`, when given, is the `Data` whose bytes `text` are: a ``RawJSON`` task of a
    /// ``SynchronousBridgeTask`` then keeps its options as a view of it instead of a copy.
    private func handle(_ text: UnsafeBufferPointer<UInt8>, owner: Data? = nil, from source: MessageSource,
                        replyHandler: ReplyHandler?) {
        let limits = configuration.limits
        if text.count <= limits.maxPayloadBytes, let scan = CallEnvelopeScan(text) {
            if scan.depth > limits.maxDepth {
                return rejectUnreadable(id: scan.id, .nestingTooDeep(limit: limits.maxDepth), bytes: text.count, source: source,
                                        replyHandler: replyHandler)
            }
            let task = taskTable.withLock { $0[scan.task] }
            if closedFlag.load(ordering: .acquiring) {
                return reject(id: scan.id, .unavailable("The router was closed."), bytes: text.count, source: source,
                              replyHandler: replyHandler, task: scan.task)
            }
            // A synchronous task answers in one step, before this returns (unless its options
            // do not decode: then the general path below reports the error).
            if let id = scan.id, let task, let respond = task.respond,
               (task.policy ?? configuration.policy).refusal(for: source) == nil,
               respondSynchronously(respond, task: task, scan: scan, id: id, in: text, owner: owner, source: source,
                                    replyHandler: replyHandler) {
                return
            }
            if case .call(let call)? = InboundEnvelope.fastCall(scan, in: text, task: task, source: source,
                                                                policy: configuration.policy) {
                return start(call, from: source, replyHandler: replyHandler, bytes: text.count)
            }
        }
        let scan = BodyScan(text)
        if text.count > limits.maxPayloadBytes {
            return rejectUnreadable(id: scan.id, .payloadTooLarge(bytes: text.count, limit: limits.maxPayloadBytes),
                          bytes: text.count, source: source, replyHandler: replyHandler)
        }
        if scan.depth > limits.maxDepth {
            return rejectUnreadable(id: scan.id, .nestingTooDeep(limit: limits.maxDepth), bytes: text.count, source: source, replyHandler: replyHandler)
        }
        let tasks = taskTable.withLock { $0 }
        let isClosed = closedFlag.load(ordering: .acquiring)
        let decoder = BridgeJSON.makeDecoder()
        if let key = InboundDecodingContext.key {
            decoder.userInfo[key] = InboundDecodingContext(tasks: tasks, source: source, policy: configuration.policy)
        }
        let message: InboundMessage
        do {
            message = try decoder.decode(InboundEnvelope.self, from: Data(text)).message
        } catch {
            return rejectUnreadable(id: scan.id, .invalidMessage("The body is not valid JSON."), bytes: text.count, source: source, replyHandler: replyHandler)
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
            reject(id: call.id, .unavailable("The router was closed."), bytes: text.count, source: source,
                   replyHandler: replyHandler, task: call.taskName)
        case .call(let call):
            start(call, from: source, replyHandler: replyHandler, bytes: text.count)
        }
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
    func reject(id: String?, _ error: BridgeError, bytes: Int, source: MessageSource, replyHandler: ReplyHandler?,
                        task: String? = nil, reason: String? = nil) {
        record(.inbound, "call", id: id, task: task, outcome: error.code, reason: reason, bytes: bytes)
        guard let id else {
            replyHandler?.reply(nil)
            return
        }
        let refused = error.code == "forbidden"
        let call = PendingCall(id: id, taskName: task ?? "", generation: pageGeneration, source: source,
                               replyHandler: replyHandler, router: self)
        let message = OutboundMessage.reply(id: id, result: .failure(error))
        Task { [self] in
            await deliverFinal(message, call: call, generation: call.generation, refused: refused)
        }
    }

    private func start(_ call: InboundCall, from source: MessageSource, replyHandler: ReplyHandler?, bytes: Int) {
        let prepared: PreparedCall
        switch call.prepared {
        case .failure(let error):
            return reject(id: call.id, error, bytes: bytes, source: source, replyHandler: replyHandler,
                          task: call.taskName, reason: call.refusal)
        case .success(let value):
            prepared = value
        }
        guard let id = call.id else {
            replyHandler?.reply(nil)
            record(.inbound, "call", id: nil, task: call.taskName, bytes: bytes)
            let generation = pageGeneration
            let context = CallContext(callID: nil, taskName: call.taskName, source: source, pageGeneration: generation)
            let name = call.taskName
            // Weak: a task that never ends must not keep the router (and its page) alive.
            let job = FireAndForgetQueue.Job(generation: generation) { [weak self] in
                // Its page may be gone by the time its turn comes (navigation, close()).
                if let gone = self?.fireAndForgetRefusal(generation: generation) {
                    self?.record(.outbound, "reply", id: nil, task: name, outcome: gone, reason: "fire_and_forget")
                    return
                }
                do {
                    guard let options = prepared.options.take() else { return }
                    _ = try await prepared.task.run(options, context)
                } catch {
                    self?.record(.outbound, "reply", id: nil, task: name, outcome: Self.bridgeError(error).code,
                                 reason: "fire_and_forget")
                }
            }
            if !fireAndForget.enqueue(job) {
                record(.outbound, "reply", id: nil, task: name, outcome: "too_many_pending_calls", reason: "fire_and_forget")
            }
            return
        }
        let limits = configuration.limits
        let timeout = prepared.task.timeout ?? configuration.defaultTimeout
        // Decided under the lock that close() takes too: a call admitted after close() would never
        // settle, and a reply handler released here must be answered here (race with close()).
        // A concrete enum, not a `Result` of a tuple: that one goes through the runtime's
        // generic metadata and value witnesses on every call.
        enum Admission {
            case admitted(PendingCall, keepsReplyHandler: Bool, observer: (@Sendable (TrafficRecord) -> Void)?)
            case refused(BridgeError)
        }
        let admission: Admission = state.withLock { state in
            if state.isClosed { return .refused(.unavailable("The router was closed.")) }
            let generation = state.generation
            // Main-frame replies go by script, in order after progress; other calls, any call
            // while no channel is connected, and paths that carry final replies keep the
            // structured reply path for the final reply.
            let keepsReplyHandler = !source.isMainFrame || state.channel == nil || replyHandler?.carriesFinalReplies == true
            let entry = PendingCall(id: id, taskName: call.taskName, generation: generation, source: source,
                                    replyHandler: keepsReplyHandler ? replyHandler : nil, router: self)
            switch state.admit(entry, as: id, limit: limits.maxPendingCalls) {
            case .duplicateID?: return .refused(.invalidMessage("The id \"\(id)\" is already in use."))
            case .tooManyPendingCalls?: return .refused(.tooManyPendingCalls(limit: limits.maxPendingCalls))
            case nil: break
            }
            if let timeout {
                entry.timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    await self?.finish(entry, .failure(.timeout(seconds: timeout.seconds)), by: .timer)
                }
            }
            return .admitted(entry, keepsReplyHandler: keepsReplyHandler, observer: state.observer)
        }
        let entry: PendingCall
        switch admission {
        case .refused(let error):
            return reject(id: id, error, bytes: bytes, source: source, replyHandler: replyHandler, task: call.taskName)
        case .admitted(let admitted, let keepsReplyHandler, let observer):
            entry = admitted
            if !keepsReplyHandler { replyHandler?.reply(nil) }
            observer?(TrafficRecord(direction: .inbound, kind: "call", id: id, task: call.taskName, outcome: nil,
                                    reason: nil, bytes: bytes))
        }
        // Started outside the lock: an immediate task runs (and may settle) before it returns.
        let work = startWork(prepared, call: entry)
        // No lock: the call's own handshake. Whoever settles the call cancels the work once it is
        // attached; when a cancel, a timeout, a navigation or close() came first, the work is
        // cancelled here. A call its work settled already (an immediate task that never suspended)
        // needs no cancel at all.
        if !entry.attachWork(work) {
            work.cancel()
        }
    }

    /// Starts the work of an admitted call where its task asks (``TaskExecution``); the work
    /// settles the call with the task's result or error.
    ///
    /// The work takes the options out of the call (``PreparedCall/options``) when it starts the
    /// task and hands the result on to ``settle(_:_:by:)`` without keeping a copy, so
    /// neither outlives the encoding of the reply: a large payload is not kept alive while the
    /// engine copies the reply.
    private func startWork(_ prepared: PreparedCall, call: PendingCall) -> Task<Void, Never> {
        let context = CallContext(call: call)
        let runner = prepared.task
        let options = prepared.options
        // The router through the call's weak reference: the work keeps neither alive.
        let operation: @Sendable () async -> Void = {
            let outcome: Result<any Encodable & Sendable, BridgeError>
            do {
                // Only `run` holds the options from here on (taken out, not copied).
                guard let taken = options.take() else { throw BridgeError.cancelled("The call has already run.") }
                outcome = .success(try await runner.run(taken, context))
            } catch {
                outcome = .failure(Self.bridgeError(error))
            }
            // Settled without a further `async` frame; only a channel with just the `async` form waits.
            if let router = call.router, let pending = router.settle(call, consume outcome, by: .work) {
                await router.deliver(pending)
            }
        }
        if prepared.task.execution == .immediate,
           #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Self.startImmediately(operation)
        }
        return Task(operation: operation)
    }

    /// Starts `operation` with `Task.immediate` (SE-0472) in a form the optimizer inlines.
    ///
    /// With Swift 6.3, a call of `Task.immediate` that is not inlined goes through a shared
    /// specialization that gives the new task a task-executor-preference record even for the
    /// default `executorPreference: nil`; each executor switch of the task then takes the task's
    /// status-record lock (callgrind: about 2,000 instructions of a 100 B call, 3 %; see
    /// docs/performance.md). Inlined, the `nil` folds away and no record is made. The optimizer
    /// inlines the call when it sits in a loop, hence the one-pass loop.
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    private static func startImmediately(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        var task: Task<Void, Never>?
        for _ in 0..<1 { task = Task.immediate(operation: operation) }
        return task ?? Task(operation: operation)
    }

    /// Why a fire-and-forget call of page `generation` must not start now: `navigated` when the
    /// page changed, `unavailable` after ``close()``; `nil` when it may.
    private func fireAndForgetRefusal(generation: UInt64) -> String? {
        state.withLock { state in
            state.isClosed ? "unavailable" : state.generation != generation ? "navigated" : nil
        }
    }

    /// Cancels the call pending as `id`, if `source` made it in the current page; the call found
    /// now is the one cancelled, even if it settles and its id is reused before the cancel lands.
    private func cancelCall(_ id: String, from source: MessageSource) {
        let matching: PendingCall? = state.withLock { state in
            guard let call = state.calls[id], call.source == source, call.generation == state.generation else { return nil }
            return call
        }
        record(.inbound, "cancel", id: id, task: nil, outcome: matching == nil ? "dropped" : nil)
        guard let matching else { return }
        Task { await finish(matching, .failure(.cancelled("The page cancelled the call.")), by: .other) }
    }

    /// Maps any error a task throws to the code the page sees.
    @usableFromInline
    static func bridgeError(_ error: any Error) -> BridgeError {
        if let bridgeError = error as? BridgeError { return bridgeError }
        if error is CancellationError { return .cancelled() }
        return .taskFailed(String(describing: error))
    }
}

extension Duration {
    /// The duration in seconds, for messages.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
