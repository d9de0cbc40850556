import Foundation

extension BridgeRouter {
    /// The page as the router's lock showed it when a call settled: the connected channel, the
    /// traffic observer and the page generation then, so that handing the reply over takes no
    /// further lock.
    struct ChannelSnapshot: Sendable {
        let channel: PageChannel?
        let observer: (@Sendable (TrafficRecord) -> Void)?
        /// The page generation when the snapshot was taken: a reply of an older generation is
        /// not handed over.
        let generation: UInt64
    }

    /// A final reply script left for a channel that only has the `async` form
    /// (``PageChannel/evaluate``): everything else is delivered without a suspension.
    struct PendingScript: Sendable {
        let script: String
        let bytes: Int
        let id: String
        let taskName: String
        let outcome: String?
        let generation: UInt64
        let channel: PageChannel?
        /// The internal error description for the log (``TrafficRecord/internalError``).
        var internalError: String? = nil
    }

    /// Settles `call` with `outcome`, if it is still pending; the first of
    /// reply, error, cancel and timeout wins and every later one does nothing, and none of them
    /// touches a later call that reuses the id (``CallStateMachine``). The call's other tasks are
    /// cancelled; the settling task itself never is, so its delivery is not interrupted.
    ///
    /// Takes `outcome` over: passed with `consume`, the result is released as soon as its reply
    /// is encoded (``answer(_:id:task:through:)``, ``finalReplyScript(_:id:)``).
    func finish(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) async {
        if let pending = settle(call, consume outcome, by: event) {
            await deliver(pending)
        }
    }

    /// ``finish(_:_:by:)`` without a suspension: a call's work settles its call with this,
    /// so that a reply to a page channel with the completion-handler form costs no further
    /// `async` frame.
    /// - Parameter event: ``CallStateMachine/Event/workFinished``, ``CallStateMachine/Event/timedOut``
    ///   or ``CallStateMachine/Event/pageCancelled``.
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func settle(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) -> PendingScript? {
        let (action, snapshot) = state.withLock { state in
            (
                state.handle(event, of: call),
                ChannelSnapshot(channel: state.channel, observer: state.observer, generation: state.generation)
            )
        }
        guard case .settle(let work, let timer) = action else { return nil }
        timer?.cancel()
        work?.cancel()
        return sendFinalReply(call, consume outcome, snapshot: snapshot)
    }

    /// Sends the final reply of a call that just settled, by the route decided at its admission.
    /// The common final reply, a result to a main-frame call answered by script, has its JSON
    /// written straight into the script, without an `OutboundMessage`.
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func sendFinalReply(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        snapshot: ChannelSnapshot
    ) -> PendingScript? {
        let id = call.id
        if case .script = call.route, let json = Self.successJSON(outcome) {
            _ = consume outcome  // the result value is released here, once its JSON is written
            return postSuccessReply(
                json, id: id, taskName: call.taskName, generation: call.generation, snapshot: snapshot,
                channel: nil)
        }
        return deliverFinalNow(
            .reply(id: id, result: consume outcome), call: call, generation: call.generation,
            snapshot: snapshot)
    }

    /// The JSON text of a successful outcome's result (``resultJSON(_:)``); `nil` for a failure
    /// and for a result that cannot be encoded (the general path then replies `invalid_result`).
    static func successJSON(_ outcome: borrowing Result<any Encodable & Sendable, BridgeError>) -> Data? {
        guard case .success(let value) = copy outcome else { return nil }
        return resultJSON(value)
    }

    /// Encodes and delivers a final reply, by the call's route (``PendingCall/route``).
    ///
    /// The reply goes through the call's ``ReplyHandler`` when the route says so; a subframe or
    /// refused sender without one gets no reply at all (only a log record); otherwise it goes as a
    /// script through the page channel, so it arrives after the call's progress messages. A reply
    /// that is too large is replaced by `payload_too_large`, and one that cannot be encoded by
    /// `invalid_result`.
    ///
    /// Takes `message` over (see ``finish(_:_:by:)``): its result is released once
    /// encoded, before the engine gets the reply. `snapshot`, when given, is the page as the
    /// lock that settled the call showed it (no further lock).
    func deliverFinal(
        _ message: consuming OutboundMessage, call: PendingCall, via channel: PageChannel? = nil,
        generation: UInt64, snapshot: ChannelSnapshot? = nil
    ) async {
        if let pending = deliverFinalNow(
            consume message, call: call, via: channel, generation: generation,
            snapshot: snapshot)
        {
            await deliver(pending)
        }
    }

    /// ``deliverFinal(_:call:via:generation:snapshot:)`` up to the point where it would suspend.
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func deliverFinalNow(
        _ message: consuming OutboundMessage, call: PendingCall, via channel: PageChannel? = nil,
        generation: UInt64, snapshot: ChannelSnapshot? = nil
    ) -> PendingScript? {
        let id = call.id
        switch call.route {
        case .replyHandler(let replyHandler):
            answer(consume message, id: id, task: call.taskName, through: replyHandler)
        case .none:
            noReplyPath(consume message, id: id, task: call.taskName)
        case .script:
            // An explicit channel (close()) is evaluated by the caller; otherwise the connected
            // channel's completion-handler form takes the script without a suspension.
            return postOrPend(
                finalReplyScript(consume message, id: id), id: id, taskName: call.taskName,
                generation: generation, snapshot: snapshot, channel: channel, post: channel == nil)
        }
        return nil
    }

    /// Evaluates a reply script left by ``settle(_:_:by:)`` or
    /// ``deliverFinalNow(_:call:via:generation:snapshot:)``.
    func deliver(_ pending: PendingScript) async {
        await deliver(
            script: pending.script, bytes: pending.bytes, kind: .reply, id: pending.id, task: pending.taskName,
            outcome: pending.outcome, generation: pending.generation, channel: pending.channel,
            internalError: pending.internalError)
    }
}
