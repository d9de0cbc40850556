extension BridgeRouter {
    /// The reply path the router answers `source`'s message through, when the answer is not a
    /// call the fast path admitted (a refusal, an acknowledgement, a call of the general path):
    /// `replyHandler` itself when the router's own policy admits the sender or nothing is paced,
    /// else one whose answer waits its turn (``RefusalPacing``, ``BridgeLimits/refusalsPerSecond``).
    /// Not ``admitsSender(_:)``: a task open to every frame (its own policy) would then leave a
    /// third-party frame's refusals for every other task unpaced. Any thread.
    func pacedReplyHandler(_ replyHandler: ReplyHandler?, for source: MessageSource) -> ReplyHandler? {
        guard let replyHandler, configuration.limits.refusalsPerSecond > 0,
            configuration.policy.refusal(for: source) != nil
        else { return replyHandler }
        return ReplyHandler(carriesFinalReplies: replyHandler.carriesFinalReplies) { [weak self] json in
            let answer: @Sendable () -> Void = { replyHandler.reply(json) }
            guard let self else { return answer() }
            self.pace(answer)
        }
    }

    /// Gives `answer` now, or holds it until the bucket has room (at once once the router closed).
    private func pace(_ answer: @escaping @Sendable () -> Void) {
        let arrival = state.withLock { state -> RefusalPacing<@Sendable () -> Void>.Arrival in
            state.isClosed ? .answer : state.refusalPacing.arrive(answer, now: .now)
        }
        switch arrival {
        case .answer: answer()
        case .held: break
        case .startDrain:
            // Holds the router only while it runs a step: a router that goes away gives the held
            // answers in its deinit.
            Task { [weak self] in
                while let step = self?.state.withLock({ $0.refusalPacing.next(now: .now) }) {
                    switch step {
                    case .answer(let answer): answer()
                    case .wait(let delay): try? await Task.sleep(for: delay)
                    case .done: return
                    }
                }
            }
        }
    }

    /// Gives every held answer now, oldest first (``close()``, deinit).
    func answerHeldRefusals() {
        for answer in state.withLock({ $0.refusalPacing.takeAll() }) { answer() }
    }
}
