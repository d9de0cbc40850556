extension BridgeRouter {
    /// Starts a call without an id (fire and forget): its task runs in the router's
    /// ``FireAndForgetQueue`` (bounded, in arrival order), nothing is answered and any error only
    /// goes to the traffic log. A call whose page changed, or whose router was closed, before
    /// its turn does not run.
    func startFireAndForget(
        _ taskName: String, _ prepared: PreparedCall, from source: MessageSource,
        replyHandler: ReplyHandler?, bytes: Int
    ) {
        replyHandler?.reply(nil)
        // Held from now until the job ends; dropped when over the budget.
        guard budget.reserve(bytes) else {
            record(
                .inbound, .call, id: nil, task: taskName, outcome: "memory_budget_exceeded", reason: .fireAndForget,
                bytes: bytes)
            return
        }
        record(.inbound, .call, id: nil, task: taskName, bytes: bytes)
        let generation = pageGeneration
        let context = CallContext(callID: nil, taskName: taskName, source: source, pageGeneration: generation)
        // Weak: a task that never ends must not keep the router (and its page) alive.
        let job = FireAndForgetQueue.Job(generation: generation) { [weak self] in
            defer { self?.budget.release(bytes) }
            // Its page may be gone by the time its turn comes (navigation, close()).
            if let gone = self?.fireAndForgetRefusal(generation: generation) {
                self?.record(.outbound, .reply, id: nil, task: taskName, outcome: gone, reason: .fireAndForget)
                return
            }
            do {
                let options = try prepared.input.options(
                    for: prepared.task, source: source,
                    policy: self?.configuration.policy ?? AccessPolicy())
                _ = try await prepared.task.run(options, context)
            } catch {
                let failure = Self.bridgeError(error)
                self?.record(
                    .outbound, .reply, id: nil, task: taskName, outcome: failure.code, reason: .fireAndForget,
                    internalError: failure.internalDescription)
            }
        }
        if !fireAndForget.enqueue(job) {
            budget.release(bytes)
            record(
                .outbound, .reply, id: nil, task: taskName, outcome: "too_many_pending_calls", reason: .fireAndForget)
        }
    }

    /// Why a fire-and-forget call of page `generation` must not start now: `navigated` when the
    /// page changed, `unavailable` after ``close()``; `nil` when it may.
    private func fireAndForgetRefusal(generation: UInt64) -> String? {
        state.withLock { state in
            state.isClosed ? "unavailable" : state.generation != generation ? "navigated" : nil
        }
    }
}
