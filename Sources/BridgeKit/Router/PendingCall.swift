/// A page call with an id, in flight.
///
/// A class, so that the router's table, the call's work and the log hand one reference around
/// instead of copying its fields; the call's work captures only this reference.
///
/// One ownership rule: ``machine`` (the call's state, timer and work task) is read and changed
/// only with the router's state lock held (``BridgeRouter/state``); ``work`` only by the call's
/// own work, once, as it starts (``takeWork()``); everything else is constant. (Reading even a
/// constant part of ``machine`` without the lock would be an exclusivity violation, which is why
/// ``route`` is a property of its own.)
final class PendingCall: @unchecked Sendable {
    /// The call's id, as the page sent it.
    let id: String
    let taskName: String
    /// The page generation the call belongs to.
    let generation: UInt64
    let source: MessageSource
    /// Where the final reply goes, decided once at admission.
    let route: CallStateMachine.Route
    /// The structured reply path, when the final reply goes through it.
    var replyHandler: ReplyHandler? {
        if case .replyHandler(let replyHandler) = route { return replyHandler }
        return nil
    }
    /// The call's life; only with the router's state lock held.
    var machine: CallStateMachine
    /// The task and its input, until the call's work takes them (``takeWork()``); `nil` for a
    /// call that never runs (an error reply).
    private var work: PreparedCall?
    /// The bytes this call holds against the router's budget (``BridgeLimits/maxHeldBytes``),
    /// released when its work ends; 0 for a call that never runs (an error reply).
    let heldBytes: Int

    /// The router the call belongs to; weak, so that a task that never ends (and keeps its
    /// context, which refers to this call) does not keep the router and its page alive.
    private(set) weak var router: BridgeRouter?

    init(
        id: String, taskName: String, generation: UInt64, source: MessageSource, route: CallStateMachine.Route,
        progressLimit: Int = .max, router: BridgeRouter, work: PreparedCall? = nil, heldBytes: Int = 0
    ) {
        self.id = id
        self.heldBytes = heldBytes
        self.work = work
        self.router = router
        self.taskName = taskName
        self.generation = generation
        self.source = source
        self.route = route
        machine = CallStateMachine(progressLimit: progressLimit)
    }

    /// Sends a progress value of this call through its router (``CallContext/progress(_:)``).
    /// - Throws: `unavailable` when the router is gone; otherwise as ``CallContext/progress(_:)``.
    func sendProgress(_ value: any Encodable & Sendable) async throws {
        guard let router else { throw BridgeError.unavailable("The router was released.") }
        try await router.sendProgress(value, call: self)
    }

    /// The task and input of the call, on the first call; `nil` on every later one. Called by
    /// the call's work only, once, as it starts: from then on the work holds the only reference,
    /// so the body and the options live no longer than the work needs them.
    func takeWork() -> PreparedCall? {
        work.take()
    }
}
