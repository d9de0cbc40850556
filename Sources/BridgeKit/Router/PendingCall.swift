import Synchronization

/// A page call in flight.
///
/// A class, so that the router's table, the settling task and the log hand one reference
/// around instead of copying eight fields (and their reference counts) at each step; the call's
/// work captures only this reference, so starting it allocates no closure context. `timer`
/// and `progressCount` are only touched with the router's state lock held (``RouterState``),
/// or by the one task that removed the entry from the table (``RouterState/take(_:)``);
/// the work task goes through its own handshake (``attachWork(_:)``, ``cancelWork()``), so
/// attaching it takes no lock.
final class PendingCall: @unchecked Sendable {
    /// The call's id, as the page sent it.
    let id: String
    let taskName: String
    let generation: UInt64
    let source: MessageSource
    /// The structured reply path, when the final reply must go through it.
    let replyHandler: ReplyHandler?
    var timer: Task<Void, Never>?
    /// The call's work task, once attached; written once by ``attachWork(_:)``, read only by
    /// ``cancelWork()`` after it saw the attachment (``workState``).
    private var workTask: Task<Void, Never>?
    /// ``WorkState`` of ``workTask``: who came first, the attachment or a cancel.
    private let workState = Atomic<UInt8>(WorkState.detached)
    /// The task and its input, until the call's work takes them (``takeWork()``); `nil` for a
    /// call that never runs (an error reply). Only the work touches it after the initializer.
    private var work: PreparedCall?
    var progressCount = 0
    /// Set, with the router's state lock held, when the entry leaves the table
    /// (``RouterState/take(_:)``, ``RouterState/takeAllCalls()``): the call has settled, or
    /// is settling. Only read with that lock held (progress).
    var settled = false

    /// The router the call belongs to; weak, so that a task that never ends (and keeps its
    /// context, which refers to this call) does not keep the router and its page alive. Set once,
    /// by the initializer.
    private(set) weak var router: BridgeRouter?

    init(id: String, taskName: String, generation: UInt64, source: MessageSource, replyHandler: ReplyHandler?,
         router: BridgeRouter, work: PreparedCall? = nil) {
        self.id = id
        self.work = work
        self.router = router
        self.taskName = taskName
        self.generation = generation
        self.source = source
        self.replyHandler = replyHandler
    }

    /// Sends a progress value of this call through its router (``CallContext/progress(_:)``).
    /// - Throws: `unavailable` when the router is gone; otherwise as ``CallContext/progress(_:)``.
    func sendProgress(_ value: any Encodable & Sendable) async throws {
        guard let router else { throw BridgeError.unavailable("The router was released.") }
        try await router.sendProgress(value, call: self)
    }

    /// The states of ``workState``.
    private enum WorkState {
        /// Neither attached nor cancelled yet.
        static let detached: UInt8 = 0
        /// ``attachWork(_:)`` came first: ``workTask`` is set.
        static let attached: UInt8 = 1
        /// ``cancelWork()`` came first: the work is cancelled by whoever attaches it.
        static let cancelled: UInt8 = 2
    }

    /// Attaches the call's work task (once, by the code that started it), without a lock.
    /// - Returns: `false` when ``cancelWork()`` came first: the caller must cancel `task` itself.
    func attachWork(_ task: Task<Void, Never>) -> Bool {
        workTask = task
        // Releasing: a cancel that sees `attached` sees `workTask` too.
        return workState.compareExchange(expected: WorkState.detached, desired: WorkState.attached,
                                         ordering: .acquiringAndReleasing).exchanged
    }

    /// Cancels the call's work task: now when it is attached, otherwise when it is
    /// (``attachWork(_:)`` then returns `false`). Called by whoever took the call from the table.
    func cancelWork() {
        if !workState.compareExchange(expected: WorkState.detached, desired: WorkState.cancelled,
                                      ordering: .acquiringAndReleasing).exchanged {
            workTask?.cancel()
        }
    }

    /// The task and input of the call, on the first call; `nil` on every later one. Called by
    /// the call's work only, once, as it starts: from then on the work holds the only reference,
    /// so the body and the options live no longer than the work needs them.
    func takeWork() -> PreparedCall? {
        work.take()
    }
}
