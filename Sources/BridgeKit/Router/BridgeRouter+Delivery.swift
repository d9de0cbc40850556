import Foundation

extension BridgeRouter {
    /// Answers a final reply through `replyHandler` and logs it.
    ///
    /// Takes `message` over: with the caller's copy passed by `consume`, each form of a large
    /// result lives only as long as the next is built from it (the value until its JSON is
    /// written, the JSON until the reply text is), so the engine's copies of the reply do not
    /// add to them.
    func answer(_ message: consuming OutboundMessage, id: String, task: String, through replyHandler: ReplyHandler) {
        let internalError = Self.internalError(of: message)
        let (outcome, encoded, encodingError) = encodeBounded(consume message, id: id)
        let bytes = encoded.count
        let text = encoded.replyText
        _ = consume encoded  // the JSON is not needed once the text exists
        let answered = replyHandler.reply(text)
        record(
            .outbound, .reply, id: id, task: task, outcome: outcome, reason: answered ? nil : .noReplyPath,
            bytes: answered ? bytes : 0, internalError: internalError ?? encodingError)
    }

    /// Logs a final reply that has no way to the page.
    func noReplyPath(_ message: consuming OutboundMessage, id: String, task: String) {
        let internalError = Self.internalError(of: message)
        let encoded = encodeBounded(consume message, id: id)
        record(
            .outbound, .reply, id: id, task: task, outcome: encoded.outcome, reason: .noReplyPath,
            internalError: internalError ?? encoded.internalError)
    }

    /// The full description of the error a failed reply carries when the page gets only a
    /// generic message (``BridgeError/pageFacing(_:code:genericMessage:)``), for the log.
    static func internalError(of message: borrowing OutboundMessage) -> String? {
        guard case .reply(_, .failure(let error)) = copy message else { return nil }
        return error.internalDescription
    }

    /// The script of a final reply, the length of its message in bytes and its outcome for the
    /// log. A result is written straight into the script string
    /// (``PageScript/successReply(id:result:limit:)``); an id that needs escapes, a result over
    /// the limit, an unencodable result and an error take the general encoder
    /// (``encodeBounded(_:id:)``), without encoding a result twice.
    ///
    /// Takes `message` over: a result value is released once its JSON is written, before the
    /// script is built, and the JSON when this returns, before the caller hands the script to
    /// the engine.
    func finalReplyScript(_ message: consuming OutboundMessage, id: String) -> BuiltReply {
        if let result = Self.successJSON(message) {
            // The JSON replaces the value (released here); it is released when this returns.
            message = .reply(id: id, result: .success(RawJSON(checked: result)))
            if let built = PageScript.successReply(id: id, result: result, limit: configuration.limits.maxPayloadBytes)
            {
                return (built.script, built.messageBytes, "ok", nil)
            }
        }
        let internalError = Self.internalError(of: message)
        let json = encodeBounded(message, id: id)
        return (
            PageScript.build(calling: .receive, jsonParts: json.data.parts), json.data.count, json.outcome,
            internalError ?? json.internalError
        )
    }

    /// A final reply script, the length of its message, its outcome and the internal error
    /// description for the log (``TrafficRecord/internalError``).
    typealias BuiltReply = (script: String, bytes: Int, outcome: String?, internalError: String?)

    /// The JSON text of the result of a successful reply (``resultJSON(_:)``); `nil` for any other
    /// message and for a result that cannot be encoded.
    private static func successJSON(_ message: borrowing OutboundMessage) -> Data? {
        guard case .reply(_, let result) = copy message else { return nil }
        return successJSON(result)
    }

    /// Evaluates the script carrying `json` in the page (see the ``OutboundJSON`` overload).
    @discardableResult
    func deliver(
        _ json: Data, kind: TrafficKind, id: String?, task: String?, outcome: String? = nil,
        generation: UInt64, channel explicitChannel: PageChannel? = nil
    ) async -> Bool {
        await deliver(
            OutboundJSON(json), kind: kind, id: id, task: task, outcome: outcome, generation: generation,
            channel: explicitChannel)
    }

    /// Evaluates the script carrying `json` in the page, unless the page changed since
    /// `generation` or there is no channel; either way the traffic log says what happened.
    /// - Returns: whether the script was handed to the engine without error.
    @discardableResult
    func deliver(
        _ json: OutboundJSON, kind: TrafficKind, id: String?, task: String?, outcome: String? = nil,
        generation: UInt64, channel explicitChannel: PageChannel? = nil
    ) async -> Bool {
        await deliver(
            script: PageScript.build(calling: .receive, jsonParts: json.parts), bytes: json.count, kind: kind,
            id: id, task: task, outcome: outcome, generation: generation, channel: explicitChannel)
    }

    /// Evaluates a script already built by ``PageScript`` (carrying a message of `bytes` bytes),
    /// with the same page check and log as the ``OutboundJSON`` overload. A final reply on a
    /// channel with the completion-handler form is handed over without waiting (the return
    /// value then says it was handed over; the log gets the engine's answer).
    @discardableResult
    func deliver(
        script: String, bytes: Int, kind: TrafficKind, id: String?, task: String?, outcome: String? = nil,
        generation: UInt64, channel explicitChannel: PageChannel? = nil, internalError: String? = nil
    ) async -> Bool {
        let (channel, current) = state.withLock { ($0.channel, $0.generation) }
        guard generation == current else {
            record(
                .outbound, kind, id: id, task: task, outcome: outcome, reason: .navigated, internalError: internalError)
            return false
        }
        guard let channel = explicitChannel ?? channel else {
            record(
                .outbound, kind, id: id, task: task, outcome: outcome, reason: .noChannel, internalError: internalError)
            return false
        }
        if kind == .reply, let post = channel.post {
            // Nothing waits for a final reply's evaluation (progress before it was awaited).
            handOver(
                script, to: post, observer: state.withLock { $0.observer }, id: id, task: task, outcome: outcome,
                bytes: bytes, internalError: internalError)
            return true
        }
        do {
            try await channel.evaluate(script)
            record(.outbound, kind, id: id, task: task, outcome: outcome, bytes: bytes, internalError: internalError)
            return true
        } catch {
            record(
                .outbound, kind, id: id, task: task, outcome: outcome, reason: .evaluateFailed("\(error)"),
                bytes: bytes,
                internalError: internalError)
            return false
        }
    }

    /// The JSON text of a task's result: a ``RawJSON``'s own bytes, or ``BridgeJSON``'s encoding;
    /// `nil` when it cannot be encoded (the general path then replies `invalid_result`).
    static func resultJSON(_ value: any Encodable & Sendable) -> Data? {
        // Comparing the dynamic type first spares every typed result a dynamic cast.
        if type(of: value) == RawJSON.self, let raw = value as? RawJSON { return raw.data }
        return try? BridgeJSON.encode(value)
    }

    /// Encodes `message`, replacing a reply that cannot be encoded or exceeds
    /// ``BridgeLimits/maxPayloadBytes`` by the matching error reply.
    /// - Returns: the outcome of the message sent, for the log (``outcome(of:)``), and its JSON
    ///   text. The message itself is not returned, so a caller that passes it with `consume`
    ///   holds the result only as JSON text once this returns.
    func encodeBounded(_ message: borrowing OutboundMessage, id: String)
        -> (outcome: String?, data: OutboundJSON, internalError: String?)
    {
        let limit = configuration.limits.maxPayloadBytes
        let replacement: BridgeError
        do {
            let data = try message.encodedParts()
            let count = data.count
            if count <= limit { return (Self.outcome(of: message), data, nil) }
            replacement = .payloadTooLarge(bytes: count, limit: limit)
        } catch {
            // The encoder's error may come from the task's own `encode(to:)`: only for the log.
            replacement = .resultNotEncodable(error)
        }
        let fallback = OutboundMessage.reply(id: id, result: .failure(replacement))
        return (
            Self.outcome(of: fallback), OutboundJSON((try? BridgeJSON.encode(fallback)) ?? Data()),
            replacement.internalDescription
        )
    }

    static func outcome(of message: OutboundMessage) -> String? {
        guard case .reply(_, let result) = message else { return nil }
        switch result {
        case .success: return "ok"
        case .failure(let error): return error.code
        }
    }

    /// Sends a progress value of `call` (``PendingCall/sendProgress(_:)``): enforces the
    /// per-call limit and order, and stops with the call (never reaching a later call that
    /// reuses the id).
    func sendProgress(_ value: any Encodable & Sendable, call: PendingCall) async throws {
        let id = call.id
        let limit = configuration.limits.maxProgressPerCall
        let (action, snapshot) = state.withLock { state in
            (
                state.handle(.progress, of: call),
                ChannelSnapshot(channel: state.channel, observer: state.observer, generation: state.generation)
            )
        }
        let generation = call.generation
        switch action {
        case .none, .cancelWork, .refuseProgress:
            throw BridgeError.cancelled("The call has already settled.")
        case .settle(let work, let timer):
            // The value past the limit settles the call; its reply goes from a new task, so that
            // cancelling the work that sent it does not interrupt it.
            timer?.cancel()
            let message = OutboundMessage.reply(id: id, result: .failure(.progressLimitExceeded(limit: limit)))
            Task { await deliverFinal(message, call: call, generation: generation, snapshot: snapshot) }
            work?.cancel()
            throw BridgeError.progressLimitExceeded(limit: limit)
        case .sendProgress:
            let message = OutboundMessage.progress(id: id, data: value)
            let data: Data
            do {
                data = try BridgeJSON.encode(message)
            } catch {
                throw BridgeError.resultNotEncodable(error, what: "The progress value")
            }
            guard data.count <= configuration.limits.maxPayloadBytes else {
                throw BridgeError.payloadTooLarge(bytes: data.count, limit: configuration.limits.maxPayloadBytes)
            }
            guard call.replyHandler?.carriesFinalReplies ?? true, call.source.isMainFrame else {
                // Subframe calls have no ordered script path to their frame; progress is not delivered.
                record(.outbound, .progress, id: id, task: call.taskName, reason: .subframeNotDelivered)
                return
            }
            await deliver(data, kind: .progress, id: id, task: call.taskName, generation: generation)
        }
    }
}
