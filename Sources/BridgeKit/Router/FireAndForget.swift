/// The fire-and-forget calls of one router (history notices, analytics): started one at a time,
/// the main frame's in the order they arrived, so a later notice never overtakes an earlier one,
/// and cancelled when their page is gone.
///
/// Two lanes: the main frame's jobs and the subframes'. When a turn ends, the main frame's oldest
/// job goes first, so an allowed iframe's queued jobs hold up the main frame's by at most the one
/// turn running (attack 26: 30 of an iframe's notices delayed the main frame's by 30 s; the
/// subframes' half of the queue's places bounded their number, not their turns). The subframes'
/// jobs go in their arrival order when the main frame has none waiting.
///
/// A job holds up the next one for at most ``turn``: a call that never ends cannot block the
/// calls after it (it goes on running on its own). Navigation cancels the jobs of the old page
/// that are still running (``cancel(before:)``); ``finish()`` cancels every running job and
/// drops the queued ones. A job also checks, when its turn comes, that its page is still the
/// current one (the router's job closure does), so a queued job of an old page never starts.
///
/// Thread safety: every method may be called from any thread.
final class FireAndForgetQueue: Sendable {
    /// One queued call: the page generation it came from, whether a subframe sent it, and its work.
    struct Job: Sendable {
        let generation: UInt64
        var fromSubframe = false
        let run: @Sendable () async -> Void
    }

    /// How long a job may hold up the next one before it is left to finish on its own.
    static let turn: Duration = .seconds(1)

    /// How many jobs may wait; subframes' jobs together at most half of them (at least one), so
    /// the main frame's notices always have the other half (attack 25's rule for pending calls).
    private let limit: Int
    /// The queued jobs and the runner waiting for one.
    private let lanes = Locked(Lanes())
    /// The jobs started and not yet finished.
    private let running = Locked(Running())

    private struct Lanes {
        var mainFrame = FIFOQueue<Job>()
        var subframes = FIFOQueue<Job>()
        /// The runner, when it waits for a job.
        var runner: CheckedContinuation<Job?, Never>?
        var isFinished = false
        var count: Int { mainFrame.count + subframes.count }

        /// The next job to start: the main frame's oldest, else the subframes' oldest.
        mutating func next() -> Job? { mainFrame.popFirst() ?? subframes.popFirst() }
    }

    private struct Running {
        var next: UInt64 = 0
        /// Running jobs by start number, with their page generation.
        var tasks: [UInt64: (generation: UInt64, task: Task<Void, Never>)] = [:]
        /// Jobs that finished before the runner recorded them (whichever comes second cleans up).
        var finishedEarly: Set<UInt64> = []
    }

    /// Creates the queue and the Swift task that runs it.
    /// - Parameter limit: how many jobs may wait; ``enqueue(_:)`` drops a job beyond it.
    init(limit: Int) {
        self.limit = limit
        // The runner holds the queue until it ends (finish(), or the router's deinit).
        Task { [self] in await runInTurn() }
    }

    /// Queues `job`.
    /// - Returns: `false` when the queue is full (for a subframe's job: when subframes' jobs take
    ///   half of it) or finished: the job was dropped.
    func enqueue(_ job: Job) -> Bool {
        let (queued, runner): (Bool, CheckedContinuation<Job?, Never>?) = lanes.withLock { lanes in
            guard !lanes.isFinished, lanes.count < limit,
                !job.fromSubframe || lanes.subframes.count < max(limit / 2, 1)
            else { return (false, nil) }
            if let runner = lanes.runner {
                // The runner waits: nothing is queued, this job is the next.
                lanes.runner = nil
                return (true, runner)
            }
            if job.fromSubframe { lanes.subframes.append(job) } else { lanes.mainFrame.append(job) }
            return (true, nil)
        }
        runner?.resume(returning: job)
        return queued
    }

    /// Cancels the running jobs that came from a page generation older than `generation`
    /// (navigation: their page is gone).
    func cancel(before generation: UInt64) {
        let stale = running.withLock { state in state.tasks.values.filter { $0.generation < generation }.map(\.task) }
        for task in stale { task.cancel() }
    }

    /// Ends the queue: later jobs are dropped, queued ones never start, running ones are cancelled.
    func finish() {
        // The queued jobs still get their turns, each ending at once: their router is closed, so
        // each only logs that it did not run (the router's job closure).
        let runner = lanes.withLock { lanes in
            lanes.isFinished = true
            defer { lanes.runner = nil }
            return lanes.runner
        }
        runner?.resume(returning: nil)
        let all = running.withLock { state in state.tasks.values.map(\.task) }
        for task in all { task.cancel() }
    }

    /// The next job, once there is one; `nil` once the queue is finished and empty.
    private func nextJob() async -> Job? {
        await withCheckedContinuation { (runner: CheckedContinuation<Job?, Never>) in
            let ready: Job?? = lanes.withLock { lanes in
                if let job = lanes.next() { return .some(job) }
                if lanes.isFinished { return .some(nil) }
                lanes.runner = runner
                return .none
            }
            if case .some(let job) = ready { runner.resume(returning: job) }
        }
    }

    private func runInTurn() async {
        while let job = await nextJob() {
            let number = running.withLock { state in
                state.next += 1
                return state.next
            }
            // The next job's turn comes when this one ends or its turn is over, whichever is first.
            // (Awaiting the job's `value` in a task group would not do: a group waits for all its
            // children, and a child awaiting `value` ignores cancellation.)
            await withCheckedContinuation { (next: CheckedContinuation<Void, Never>) in
                let turn = Turn(next)
                let timer = Task {
                    try? await Task.sleep(for: Self.turn)
                    turn.end()
                }
                let task = Task { [self] in
                    await job.run()
                    timer.cancel()
                    turn.end()
                    running.withLock { state in
                        if state.tasks.removeValue(forKey: number) == nil { state.finishedEarly.insert(number) }
                    }
                }
                running.withLock { state in
                    if state.finishedEarly.remove(number) == nil { state.tasks[number] = (job.generation, task) }
                }
            }
        }
    }

    /// One job's turn: ends once, by the job or by its timer.
    private final class Turn: Sendable {
        private let next: Locked<CheckedContinuation<Void, Never>?>

        init(_ next: CheckedContinuation<Void, Never>) { self.next = Locked(next) }

        func end() {
            next.withLock { next in
                defer { next = nil }
                return next
            }?.resume()
        }
    }
}

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
        let share = ByteBudget.Share(source)
        guard budget.reserve(bytes, for: share) else {
            record(
                .inbound, .call, id: nil, task: taskName, outcome: "memory_budget_exceeded", reason: .fireAndForget,
                bytes: bytes)
            return
        }
        record(.inbound, .call, id: nil, task: taskName, bytes: bytes)
        let generation = pageGeneration
        let context = CallContext(callID: nil, taskName: taskName, source: source, pageGeneration: generation)
        // Weak: a task that never ends must not keep the router (and its page) alive.
        let job = FireAndForgetQueue.Job(generation: generation, fromSubframe: share == .subframes) { [weak self] in
            defer { self?.budget.release(bytes, for: share) }
            // Its page may be gone by the time its turn comes (navigation, close()).
            if let gone = self?.fireAndForgetRefusal(generation: generation) {
                self?.record(.outbound, .reply, id: nil, task: taskName, outcome: gone, reason: .fireAndForget)
                return
            }
            do {
                let options = try prepared.input.options(for: prepared.task)
                _ = try await prepared.task.run(options, context)
            } catch {
                let failure = Self.bridgeError(error)
                self?.record(
                    .outbound, .reply, id: nil, task: taskName, outcome: failure.code, reason: .fireAndForget,
                    internalError: failure.internalDescription)
            }
        }
        if !fireAndForget.enqueue(job) {
            budget.release(bytes, for: share)
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
