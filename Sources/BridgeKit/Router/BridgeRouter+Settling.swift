import Foundation

extension BridgeRouter {
    /// Which task settles a call: the one that must not be cancelled before it delivers.
    enum Settler {
        /// The call's own work task, with its result.
        case work
        /// The call's timer task, on timeout.
        case timer
        /// The work task, stopping itself (progress limit): delivery moves to a new task.
        case workStopping
        /// Any other task (a page cancel).
        case other
    }

    /// The connected channel and the traffic observer, read under the lock that admitted a call
    /// (or, when either changed since, under the lock when it settles), so that settling and
    /// handing over its reply take no lock: only the page generation is read again
    /// (``BridgeRouter/currentGeneration``, atomically) just before the script goes to the engine.
    struct ChannelSnapshot: Sendable {
        let channel: PageChannel?
        let observer: (@Sendable (TrafficRecord) -> Void)?
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
    /// touches a later call that reuses the id. The call's other tasks are cancelled; the
    /// settling task itself never is, so its delivery is not interrupted.
    ///
    /// Takes `outcome` over: passed with `consume`, the result is released as soon as its reply
    /// is encoded (``answer(_:id:task:through:)``, ``finalReplyScript(_:id:)``).
    func finish(_ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
                by settler: Settler) async {
        if let pending = settle(call, consume outcome, by: settler) {
            await deliver(pending)
        }
    }

    /// ``finish(_:_:by:)`` without a suspension: a call's work settles its call with this,
    /// so that a reply to a page channel with the completion-handler form costs no further
    /// `async` frame.
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func settle(_ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
                by settler: Settler) -> PendingScript? {
        let id = call.id
        // No lock: the claim decides who settles; the channel and observer are the admission's
        // unless either changed since.
        guard call.claim() else { return nil }
        let snapshot = call.takeAdmissionSnapshot(ifEpoch: channelEpoch.load(ordering: .acquiring))
            ?? state.withLock { ChannelSnapshot(channel: $0.channel, observer: $0.observer) }
        let generation = call.generation
        if settler != .timer { call.timer?.cancel() }
        if settler == .timer || settler == .other { call.cancelWork() }
        if settler == .workStopping {
            let message = OutboundMessage.reply(id: id, result: outcome)
            Task { await deliverFinal(message, call: call, generation: generation, snapshot: snapshot) }
            call.cancelWork()
            return nil
        }
        // The common final reply: a result to a main-frame call, answered by script; its JSON is
        // written straight into the script, without an `OutboundMessage`.
        if case .script = Self.finalReplyRoute(call.replyHandler, source: call.source, hasChannel: snapshot.channel != nil,
                                               refused: false),
           let json = Self.successJSON(outcome) {
            _ = consume outcome  // the result value is released here, once its JSON is written
            call.replyHandler?.reply(nil)
            return postSuccessReply(json, id: id, taskName: call.taskName, generation: generation, snapshot: snapshot,
                                    channel: nil)
        }
        return deliverFinalNow(.reply(id: id, result: consume outcome), call: call, generation: generation,
                               snapshot: snapshot)
    }

    /// The JSON text of a successful outcome's result (``resultJSON(_:)``); `nil` for a failure
    /// and for a result that cannot be encoded (the general path then replies `invalid_result`).
    static func successJSON(_ outcome: borrowing Result<any Encodable & Sendable, BridgeError>) -> Data? {
        guard case .success(let value) = copy outcome else { return nil }
        return resultJSON(value)
    }

    /// Encodes and delivers a final reply.
    ///
    /// The reply goes through the call's ``ReplyHandler``, when it has one, for subframe calls,
    /// for calls the policy refused (no script is evaluated for a refused sender, field case
    /// R27), when no channel is connected, and when the path carries final replies
    /// (``ReplyHandler/carriesFinalReplies``: one engine round trip instead of two); a subframe
    /// or refused sender without one gets no reply at all (only a log record); otherwise it goes
    /// as a script through the page channel, so it arrives after the call's progress messages.
    /// A reply that is too large is replaced by `payload_too_large`, and one that cannot be
    /// encoded by `invalid_result`.
    ///
    /// Takes `message` over (see ``finish(_:_:by:)``): its result is released once
    /// encoded, before the engine gets the reply. `snapshot`, when given, is the channel and
    /// observer read when the call was taken from the table (no further lock).
    func deliverFinal(_ message: consuming OutboundMessage, call: PendingCall, via channel: PageChannel? = nil,
                      generation: UInt64, refused: Bool = false, snapshot: ChannelSnapshot? = nil) async {
        if let pending = deliverFinalNow(consume message, call: call, via: channel, generation: generation,
                                         refused: refused, snapshot: snapshot) {
            await deliver(pending)
        }
    }

    /// ``deliverFinal(_:call:via:generation:refused:snapshot:)`` up to the point where it
    /// would suspend.
    /// - Returns: the reply script still to evaluate when the channel only has the `async` form.
    func deliverFinalNow(_ message: consuming OutboundMessage, call: PendingCall, via channel: PageChannel? = nil,
                         generation: UInt64, refused: Bool = false, snapshot: ChannelSnapshot? = nil) -> PendingScript? {
        let id = call.id
        let hasChannel = channel != nil || (snapshot.map { $0.channel != nil } ?? state.withLock { $0.channel != nil })
        switch Self.finalReplyRoute(call.replyHandler, source: call.source, hasChannel: hasChannel, refused: refused) {
        case .replyHandler(let replyHandler):
            answer(consume message, id: id, task: call.taskName, through: replyHandler)
        case .none:
            noReplyPath(consume message, id: id, task: call.taskName)
        case .script:
            call.replyHandler?.reply(nil)
            // An explicit channel (close()) is evaluated by the caller; otherwise the connected
            // channel's completion-handler form takes the script without a suspension.
            return postOrPend(finalReplyScript(consume message, id: id), id: id, taskName: call.taskName,
                              generation: generation, snapshot: snapshot, channel: channel, post: channel == nil)
        }
        return nil
    }

    /// Evaluates a reply script left by ``settle(_:_:by:)`` or
    /// ``deliverFinalNow(_:call:via:generation:refused:snapshot:)``.
    func deliver(_ pending: PendingScript) async {
        await deliver(script: pending.script, bytes: pending.bytes, kind: "reply", id: pending.id, task: pending.taskName,
                      outcome: pending.outcome, generation: pending.generation, channel: pending.channel,
                      internalError: pending.internalError)
    }

    /// Where a final reply goes (see ``deliverFinal(_:call:via:generation:refused:snapshot:)``).
    enum FinalReplyRoute {
        /// Through the message's reply handler.
        case replyHandler(ReplyHandler)
        /// As a script in the main frame, through the page channel.
        case script
        /// Nowhere: a refused sender or a subframe without a reply handler (only a log record).
        case none
    }

    /// The route of a final reply: the reply handler for refused senders, subframes, when no
    /// channel is connected and when it carries final replies; a script for the main frame
    /// otherwise; never a script for a refused sender or a subframe (it would settle the main
    /// frame's call of the same id, field case R27).
    static func finalReplyRoute(_ replyHandler: ReplyHandler?, source: MessageSource, hasChannel: Bool,
                                refused: Bool) -> FinalReplyRoute {
        if let replyHandler, refused || !source.isMainFrame || !hasChannel || replyHandler.carriesFinalReplies {
            return .replyHandler(replyHandler)
        }
        return refused || !source.isMainFrame ? .none : .script
    }
}
