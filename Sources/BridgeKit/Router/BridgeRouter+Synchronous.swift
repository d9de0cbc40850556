import Foundation

extension BridgeRouter {
    /// A progress function for calls that cannot send progress (``SynchronousBridgeTask``).
    /// Static, so a call's context allocates nothing for it.
    static let noProgress: @Sendable (any Encodable & Sendable) async throws -> Void = { _ in
        throw BridgeError.cancelled("A synchronous task cannot send progress: its call settles when it returns.")
    }

    /// Runs a plain call of a ``SynchronousBridgeTask`` at once, on the calling thread, and
    /// hands its final reply to the engine before returning (see ``SynchronousBridgeTask`` for
    /// what differs from an asynchronous call). The caller has checked the access policy.
    ///
    /// No pending-call entry is made: the call settles here, exactly once, so no cancel,
    /// timeout, navigation or ``close()`` can reach it; its reply goes through the channel that
    /// was connected when it was admitted, so a ``close()`` while the task runs does not lose it.
    /// The admission still refuses a call after ``close()`` (`unavailable`) and an id a pending
    /// call uses (`invalid_message`), under the lock `close()` takes. The reply takes the same path as an asynchronous call's final reply
    /// (``deliverFinal(_:call:via:generation:snapshot:)``): the reply handler when it carries
    /// final replies, the call is from a subframe or no channel is connected; otherwise a script,
    /// handed over directly when the channel has the completion-handler form
    /// (``PageChannel/init(post:)``), else from a new Swift task.
    ///
    /// - Parameters:
    ///   - text: the body; `owner`, when given, is the `Data` holding it (see `handle`).
    /// - Returns: `false` when the options do not decode into the task's type: nothing ran and
    ///   nothing was answered, and the caller takes the general path, which reports the error.
    func respondSynchronously(
        _ respond: SynchronousResponder, task: AnyBridgeTask, scan: CallEnvelopeScan, id: String,
        in text: UnsafeBufferPointer<UInt8>, owner: Data?, source: MessageSource,
        replyHandler: ReplyHandler?
    ) -> Bool {
        let options: Data
        if let range = scan.options, let base = text.baseAddress, !range.isEmpty {
            let start = UnsafeMutableRawPointer(mutating: base + range.lowerBound)
            if !task.takesRawJSON {
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
        let taskName = scan.task
        let bytes = text.count
        let outcome = respond(options) {
            refusal = state.withLock { state in
                if state.isClosed { return .unavailable("The router was closed.") }
                if state.calls[id] != nil { return .invalidMessage("The id \"\(id)\" is already in use.") }
                generation = state.generation
                channel = state.channel
                observer = state.observer
                return nil
            }
            guard refusal == nil else { return nil }
            observer?(
                TrafficRecord(
                    direction: .inbound, kind: TrafficKind.call.rawValue, id: id, task: taskName, outcome: nil,
                    reason: nil,
                    bytes: bytes))
            return CallContext(
                callID: id, taskName: taskName, source: source, pageGeneration: generation,
                progress: Self.noProgress)
        }
        let result: Result<Data, BridgeError>
        switch outcome {
        case .undecodable:
            return false
        case .notAdmitted:
            reject(
                id: id, refusal ?? .unavailable("The router was closed."), bytes: bytes, source: source,
                replyHandler: replyHandler, task: taskName)
            return true
        case .result(let data):
            result = .success(data)
        case .failure(let error):
            result = .failure(error)
        }
        deliverSynchronousReply(
            result, id: id, taskName: taskName, source: source, replyHandler: replyHandler,
            generation: generation, channel: channel, observer: observer)
        return true
    }

    private static let nullOptions = Data("null".utf8)
    private static let ignoreCompletion: @Sendable ((any Error)?) -> Void = { _ in }

    /// Delivers the final reply of a synchronous call (see ``respondSynchronously``): the same
    /// route as ``deliverFinal(_:call:via:generation:snapshot:)``, without a Swift task unless
    /// the channel only has the `async` form. `channel` and `observer` are the ones read when the
    /// call was admitted (see ``postReply(_:generation:id:taskName:outcome:bytes:snapshot:internalError:)``).
    private func deliverSynchronousReply(
        _ result: Result<Data, BridgeError>, id: String, taskName: String,
        source: MessageSource, replyHandler: ReplyHandler?, generation: UInt64,
        channel: PageChannel?, observer: (@Sendable (TrafficRecord) -> Void)?
    ) {
        var message: OutboundMessage {
            switch result {
            case .success(let data): .reply(id: id, result: .success(RawJSON(checked: data)))
            case .failure(let error): .reply(id: id, result: .failure(error))
            }
        }
        switch CallStateMachine.route(
            replyHandler: replyHandler, source: source, hasChannel: channel != nil, refused: false)
        {
        case .replyHandler(let replyHandler):
            answer(message, id: id, task: taskName, through: replyHandler)
        case .none:
            noReplyPath(message, id: id, task: taskName)
        case .script:
            replyHandler?.reply(nil)
            // The channel and observer of the admission; the page generation of now.
            let snapshot = ChannelSnapshot(
                channel: channel, observer: observer, generation: state.withLock { $0.generation })
            let pending: PendingScript?
            if case .success(let data) = result {
                // The common case, without making the message first (finalReplyScript would).
                pending = postSuccessReply(
                    data, id: id, taskName: taskName, generation: generation, snapshot: snapshot,
                    channel: channel)
            } else {
                pending = postOrPend(
                    finalReplyScript(message, id: id), id: id, taskName: taskName, generation: generation,
                    snapshot: snapshot, channel: channel)
            }
            if let pending {
                Task { await deliver(pending) }
            }
        }
    }

    /// Builds the script of a successful final reply from its result's JSON text and hands it to
    /// the channel (``postReply(_:generation:id:taskName:outcome:bytes:snapshot:internalError:)``): the common
    /// final reply, written straight into the script (``PageScript/successReply(id:result:limit:)``)
    /// without making an ``OutboundMessage`` first. A result the fast builder leaves (an id that
    /// needs escapes, a reply over the limit) takes ``finalReplyScript(_:id:)``. The caller has
    /// chosen the script route (``CallStateMachine/route(replyHandler:source:hasChannel:refused:)``) and answered
    /// the reply handler, if any.
    /// - Parameter channel: the channel the returned ``PendingScript`` names (`nil`: the one
    ///   connected when it is evaluated).
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func postSuccessReply(
        _ json: Data, id: String, taskName: String, generation: UInt64,
        snapshot: ChannelSnapshot?, channel: PageChannel?
    ) -> PendingScript? {
        let built: BuiltReply
        if let fast = PageScript.successReply(id: id, result: json, limit: configuration.limits.maxPayloadBytes) {
            built = (fast.script, fast.messageBytes, "ok", nil)
        } else {
            built = finalReplyScript(.reply(id: id, result: .success(RawJSON(checked: json))), id: id)
        }
        return postOrPend(
            built, id: id, taskName: taskName, generation: generation, snapshot: snapshot, channel: channel)
    }

    /// Hands a built final reply script to the channel's completion-handler form
    /// (``postReply(_:generation:id:taskName:outcome:bytes:snapshot:internalError:)``) when `post` is `true`;
    /// otherwise, or when the channel only has the `async` form, returns it for
    /// ``deliver(_:)``, naming `channel` (`nil`: the one connected when it is evaluated).
    func postOrPend(
        _ built: BuiltReply, id: String, taskName: String,
        generation: UInt64, snapshot: ChannelSnapshot?, channel: PageChannel?, post: Bool = true
    ) -> PendingScript? {
        if post,
            postReply(
                built.script, generation: generation, id: id, taskName: taskName, outcome: built.outcome,
                bytes: built.bytes, snapshot: snapshot, internalError: built.internalError)
        {
            return nil
        }
        return PendingScript(
            script: built.script, bytes: built.bytes, id: id, taskName: taskName,
            outcome: built.outcome, generation: generation, channel: channel,
            internalError: built.internalError)
    }

    /// Hands a final reply script to the channel's ``PageChannel/post``, unless the page changed
    /// since `generation` (pages change: a reply never reaches another page) or there is no
    /// channel; either way the traffic log says what happened.
    ///
    /// - Parameter snapshot: the channel and observer to use, read under the lock that admitted
    ///   (a synchronous call) or settled (an asynchronous one) the call, with the page generation
    ///   read under the lock that settled it; `nil` to read all three now. A synchronous call's
    ///   reply thus still reaches its page when ``close()`` drops the channel while the task runs
    ///   (the call then settles with its result, as an asynchronous call in flight settles with
    ///   `unavailable`).
    /// - Returns: `false` when the channel has only the `async` form: nothing was done and the
    ///   caller delivers the script with ``deliver(script:bytes:kind:id:task:outcome:generation:channel:internalError:)``.
    func postReply(
        _ script: String, generation: UInt64, id: String, taskName: String, outcome: String?,
        bytes: Int, snapshot: ChannelSnapshot? = nil, internalError: String? = nil
    ) -> Bool {
        let current: UInt64
        let connected: PageChannel?
        let observer: (@Sendable (TrafficRecord) -> Void)?
        if let snapshot {
            (current, connected, observer) = (snapshot.generation, snapshot.channel, snapshot.observer)
        } else {
            (current, connected, observer) = state.withLock { ($0.generation, $0.channel, $0.observer) }
        }
        guard current == generation, let channel = connected else {
            record(
                .outbound, .reply, id: id, task: taskName, outcome: outcome,
                reason: current == generation ? .noChannel : .navigated, internalError: internalError)
            return true
        }
        guard let post = channel.post else { return false }
        handOver(
            script, to: post, observer: observer, id: id, task: taskName, outcome: outcome, bytes: bytes,
            internalError: internalError)
        return true
    }

    /// Hands a final reply script to a channel's completion-handler form without waiting; the
    /// traffic log gets the engine's answer when it comes.
    func handOver(
        _ script: String, to post: PageChannel.Post, observer: (@Sendable (TrafficRecord) -> Void)?,
        id: String?, task: String?, outcome: String?, bytes: Int, internalError: String? = nil
    ) {
        guard let observer else {
            // Nobody reads the log: a completion without captures allocates nothing.
            return post(script, Self.ignoreCompletion)
        }
        // As ``record(_:_:id:task:outcome:reason:bytes:internalError:)``.
        let task = task.flatMap { $0.isEmpty ? nil : $0 }
        post(script) { error in
            observer(
                TrafficRecord(
                    direction: .outbound, kind: TrafficKind.reply.rawValue, id: id, task: task, outcome: outcome,
                    reason: error.map { TrafficReason.evaluateFailed("\($0)").text }, bytes: bytes,
                    internalError: internalError))
        }
    }
}
