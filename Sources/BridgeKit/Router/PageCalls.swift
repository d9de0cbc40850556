import Foundation

extension BridgeRouter {
    /// Sends an event to the page's `WebBridge.on(name, …)` listeners.
    /// - Parameters:
    ///   - name: the event name.
    ///   - data: the payload; any `Encodable` value. Its `Data` values reach the page as
    ///     `Uint8Array`s through the byte transport (``BinaryTransfers``) when one is attached and
    ///     the document's notice told an origin the router's ``AccessPolicy`` admits (a task's own
    ///     policy does not count: an event belongs to no task;
    ///     ``pageDidAnnounceDocument(_:origin:)``, which both WebKit adapters call); otherwise
    ///     they are base64 text, as `JSONEncoder` writes them.
    /// The event is for the document on screen when `emit` is called: when another one commits
    /// before the event leaves (say it waited for a place in the
    /// ``BridgeLimits/maxOutboundInFlight`` window), nobody gets it.
    /// - Throws: ``BridgeError`` `unavailable` when no page channel is connected, the document
    ///   the event was for went away before it left, or the engine failed to evaluate the script;
    ///   `cancelled` when the calling Swift task is cancelled while the event waits for a place in
    ///   the window (the event is not sent; one that finds a place goes);
    ///   `invalid_result` when `data` cannot be encoded;
    ///   `payload_too_large` over ``BridgeLimits/maxPayloadBytes`` or a `Data` value over
    ///   ``BinaryLimits/maxTransferBytes``; `memory_budget_exceeded` over the byte transport's
    ///   budgets (``BinaryLimits``).
    public func emit(_ name: String, data: some Encodable & Sendable = NoResult()) async throws {
        try await emitEvent(name, data: data)
    }

    /// Sends an event whose payload is a ``JSONValue``: a literal of mixed types
    /// (`["from": "native", "n": 1]`), which the generic form cannot infer, is one. Otherwise the
    /// same as the generic `emit(_:data:)`.
    public func emit(_ name: String, data: JSONValue) async throws {
        try await emitEvent(name, data: data)
    }

    private func emitEvent(_ name: String, data: some Encodable & Sendable) async throws {
        // The document on screen now is the one the event is for: one that commits while the
        // event waits for a place does not get it (attack 26, F1).
        let (generation, origin) = state.withLock { ($0.generation, $0.documentOrigin) }
        // Encoded once it has a place on the way to the page (``OutboundWindow``).
        let delivered = try await inOutboundWindow {
            guard pageGeneration == generation else {
                record(.outbound, .event, id: nil, task: name, reason: .navigated)
                return false
            }
            let json = try encodeEvent(name, data: data, generation: generation, origin: origin)
            return await send(
                OutgoingScript(
                    script: ReplyPipeline.script(json), bytes: json.count, kind: .event, id: nil, task: name,
                    generation: generation))
        }
        guard delivered else {
            throw BridgeError.unavailable("The event could not be delivered to the page.")
        }
    }

    /// The JSON text of an event for the document of `generation`, within
    /// ``BridgeLimits/maxPayloadBytes``. Its `Data` values become downloads for that document
    /// (``BinaryOutlet``, their tokens in the event's envelope) when its notice told an origin the
    /// router's policy admits (``pageDidAnnounceDocument(_:origin:)``); otherwise they are base64 text.
    /// - Throws: `invalid_result` when it cannot be encoded; `payload_too_large` over the limit;
    ///   a download's ``BridgeError`` (over a ``BinaryLimits`` budget).
    private func encodeEvent(
        _ name: String, data: some Encodable & Sendable, generation: UInt64, origin: SecurityOrigin?
    ) throws -> OutboundJSON {
        // The router's own policy, not a task's: an event belongs to no task. A source with no
        // origin is one the byte transport does not serve, so its `Data` is base64 text.
        let admitted = origin.flatMap { configuration.policy.refusal(for: .mainFrame($0)) == nil ? $0 : nil }
        let context = CallContext(
            callID: nil, taskName: name, source: .mainFrame(admitted), pageGeneration: generation)
        let (json, written): (Data, [String])
        do {
            (json, written) = try binaryOutlet.write(for: context) { try BridgeJSON.encode(data) }
        } catch let error as BridgeError {
            throw error
        } catch {
            throw BridgeError.invalidResult("The value could not be encoded as JSON: \(error)")
        }
        let event = try ReplyPipeline.event(name: name, data: json, binary: written)
        let limit = configuration.limits.maxPayloadBytes
        guard event.count <= limit else {
            binaryOutlet.withdraw(written)
            throw BridgeError.payloadTooLarge(bytes: event.count, limit: limit)
        }
        return event
    }

    /// Calls a handler the page registered with `WebBridge.handle(name, fn)` and waits for its
    /// answer.
    ///
    /// - Parameters:
    ///   - handler: the page handler's name.
    ///   - options: the argument passed to the handler.
    ///   - type: the type to decode the handler's result into (``JSONValue`` for any).
    ///   - timeout: how long to wait; default 30 s. `nil` waits until the page answers,
    ///     navigates, or the router closes.
    /// - Returns: the handler's result.
    /// - Throws: ``BridgeError``: the page's own error (`unknown_task` when no handler has that
    ///   name), `timeout`, `cancelled` (the calling Swift task was cancelled), `navigated`,
    ///   `unavailable`, `too_many_pending_calls`, `invalid_result` when the answer does not decode
    ///   into `type` (its message says where and what, as an `invalid_options` message does, and
    ///   names no Swift type of the app: a task may pass it on to the page).
    public func callPage<Result: Decodable & Sendable>(
        _ handler: String,
        options: some Encodable & Sendable = NoResult(),
        as type: Result.Type = JSONValue.self,
        timeout: Duration? = .seconds(30)
    ) async throws -> Result {
        try await callPageDecoding(handler, options: options, as: type, timeout: timeout)
    }

    /// Calls a page handler with options that are a ``JSONValue``: a literal of mixed types
    /// (`["item": 1, "note": "x"]`), which the generic form cannot infer, is one. Otherwise the
    /// same as the generic `callPage(_:options:as:timeout:)`.
    public func callPage<Result: Decodable & Sendable>(
        _ handler: String,
        options: JSONValue,
        as type: Result.Type = JSONValue.self,
        timeout: Duration? = .seconds(30)
    ) async throws -> Result {
        try await callPageDecoding(handler, options: options, as: type, timeout: timeout)
    }

    private func callPageDecoding<Result: Decodable & Sendable>(
        _ handler: String, options: some Encodable & Sendable, as type: Result.Type, timeout: Duration?
    ) async throws -> Result {
        let value = try await callPageRaw(handler, options: options, timeout: timeout)
        if let direct = value as? Result { return direct }
        do {
            return try BridgeJSON.decode(Result.self, from: BridgeJSON.encode(value))
        } catch {
            // Said in the words of the options errors: a task may pass the error on to the page.
            let message =
                (error as? DecodingError).map { DecodingErrorDescription($0, of: "answer").message }
                ?? "The page's answer could not be read."
            var failure = BridgeError.invalidResult(message)
            failure.internalDescription = String(reflecting: error)
            throw failure
        }
    }

    private func callPageRaw(_ handler: String, options: some Encodable & Sendable, timeout: Duration?) async throws
        -> JSONValue
    {
        let limit = configuration.limits.maxUnansweredPageCalls
        let (id, generation) = try state.withLock { state -> (String, UInt64) in
            guard !state.isClosed else { throw BridgeError.unavailable("The router was closed.") }
            guard state.pageCalls.count < limit else { throw BridgeError.tooManyPendingCalls(limit: limit) }
            state.nextPageCallNumber += 1
            return ("n-\(state.nextPageCallNumber)-\(state.pageCallTag)", state.generation)
        }
        let json = try encodeForPage(.call(id: id, handler: handler, options: options))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outgoing = OutgoingScript(
                    script: ReplyPipeline.script(json), bytes: json.count, kind: .call, id: id, task: handler,
                    generation: generation)
                let refusal = state.withLock { state -> BridgeError? in
                    guard state.generation == generation, !state.isClosed else { return .navigated() }
                    // Checked under the lock the cancellation handler takes too: a cancel that came
                    // before this registration found nothing to fail, so it is honoured here.
                    guard !Task.isCancelled else { return .cancelled() }
                    var entry = UnansweredPageCall(handler: handler, generation: generation, continuation: continuation)
                    if let timeout {
                        entry.timer = Task { [weak self] in
                            guard (try? await Task.sleep(for: timeout)) != nil else { return }
                            self?.failPageCall(id, .timeout(seconds: timeout.seconds), notifyPage: true)
                        }
                    }
                    state.pageCalls[id] = entry
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                    return
                }
                Task { [self] in
                    // `false` also when the call settled before its script left (nothing to fail then).
                    if await !send(outgoing) {
                        failPageCall(
                            id, .unavailable("The call could not be delivered to the page."), notifyPage: false)
                    }
                }
            }
        } onCancel: {
            failPageCall(id, .cancelled(), notifyPage: true)
        }
    }

    /// Settles a native-to-page call with the page's reply (from ``receive(_:from:replyHandler:)``).
    func settlePageCall(_ id: String, result: Result<JSONValue, BridgeError>, from source: MessageSource, bytes: Int) {
        let entry: UnansweredPageCall? = state.withLock { state in
            guard source.isMainFrame, let entry = state.pageCalls[id], entry.generation == state.generation else {
                return nil
            }
            state.pageCalls[id] = nil
            return entry
        }
        let outcome: String =
            switch result {
            case .success: "ok"
            case .failure(let error): error.code
            }
        record(
            .inbound, .reply, id: id, task: entry?.handler, outcome: entry == nil ? "dropped" : outcome, bytes: bytes)
        guard let entry else { return }
        entry.timer?.cancel()
        entry.continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Settles native-to-page call `id` with `error`, if it is unanswered, and tells the page when
    /// `notifyPage` is set and the call's script left the router (``RouterState/handOver(_:)``; a
    /// call still in the router is never sent). The cancel goes out at once, without waiting for
    /// the call's evaluation to end (the shim takes a cancel that comes before its call as that
    /// call's); it is numbered in flight before the caller's `callPage` throws, so every script
    /// of the generation sent after that reaches the page after the cancel (``CancelOrder``).
    func failPageCall(_ id: String, _ error: BridgeError, notifyPage: Bool) {
        let json = notifyPage ? try? encodeForPage(.cancel(id: id)) : nil
        let (entry, channel, number, waiting) = state.withLock {
            state -> (UnansweredPageCall?, PageChannel?, UInt64?, [CheckedContinuation<Void, Never>]) in
            guard let entry = state.pageCalls.removeValue(forKey: id) else { return (nil, nil, nil, []) }
            // Its script, if it waits for cancels, stops waiting: it is dropped now.
            let waiting = entry.submitted ? [] : state.cancelOrder.ended(ScriptOwner.pageCall(id))
            guard entry.submitted, json != nil else { return (entry, nil, nil, waiting) }
            // The channel of now: a close() that follows does not strand the cancel.
            return (entry, state.channel, state.cancelOrder.begin(generation: entry.generation), waiting)
        }
        for waiter in waiting { waiter.resume() }
        guard let entry else { return }
        entry.timer?.cancel()
        entry.continuation.resume(throwing: error)
        guard let number, let json else { return }
        var outgoing = OutgoingScript(
            script: ReplyPipeline.script(json), bytes: json.count, kind: .cancel, id: id, task: entry.handler,
            generation: entry.generation)
        outgoing.channel = channel
        Task { [self] in
            _ = await deliver(outgoing, to: state.withLock { $0.scriptTarget })
            for waiter in state.withLock({ $0.cancelOrder.delivered(number) }) { waiter.resume() }
        }
    }
}
