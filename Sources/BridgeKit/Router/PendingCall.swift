import Synchronization

/// A page call in flight.
///
/// A class, so that the router's table, the settling task and the log hand one reference
/// around instead of copying eight fields (and their reference counts) at each step; the call's
/// work captures only this reference, so starting it allocates no closure context.
///
/// Who settles the call is decided without a lock: whoever ``claim()``s it first (its work, its
/// timer, a cancel, a navigation, ``BridgeRouter/close()``), exactly once. Its entry in the
/// router's table is removed lazily (``RouterState``). `timer` is set with the router's state
/// lock held, before the call is visible to anyone, and `progressCount` is only touched with that
/// lock held; the work task goes through its own handshake (``attachWork(_:)``,
/// ``cancelWork()``), so attaching it takes no lock.
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
    /// The bytes this call holds against the router's budget (``BridgeLimits/maxHeldBytes``),
    /// released when its work ends; 0 for a call that never runs (an error reply).
    let heldBytes: Int
    /// Whether the call has been claimed for settling (``claim()``): set once, never cleared.
    private let claimed = Atomic<Bool>(false)
    /// The channel and traffic observer connected when the call was admitted, read under the
    /// lock that admitted it, with the router's ``BridgeRouter/channelEpoch`` then; taken by the
    /// call's settler (``takeAdmissionSnapshot()``), so its reply needs no lock when neither has
    /// changed since.
    private var admissionSnapshot: BridgeRouter.ChannelSnapshot?
    private let admissionEpoch: UInt64

    /// The router the call belongs to; weak, so that a task that never ends (and keeps its
    /// context, which refers to this call) does not keep the router and its page alive. Set once,
    /// by the initializer.
    private(set) weak var router: BridgeRouter?

    init(id: String, taskName: String, generation: UInt64, source: MessageSource, replyHandler: ReplyHandler?,
         router: BridgeRouter, work: PreparedCall? = nil, snapshot: BridgeRouter.ChannelSnapshot? = nil, epoch: UInt64 = 0,
         heldBytes: Int = 0) {
        self.id = id
        self.heldBytes = heldBytes
        self.work = work
        admissionSnapshot = snapshot
        admissionEpoch = epoch
        self.router = router
        self.taskName = taskName
        self.generation = generation
        self.source = source
        self.replyHandler = replyHandler
    }

    /// Claims the call for settling, without a lock: `true` for exactly one caller, ever; every
    /// later claim (a timer, cancel, navigation or close after the work, or the other way round)
    /// gets `false` and must not answer the call.
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Whether the call has been claimed: it has settled, or is settling.
    var isSettled: Bool {
        claimed.load(ordering: .acquiring)
    }

    /// The channel snapshot of the call's admission, when the router's channel and observer are
    /// still the ones of then (`epoch` is the router's ``BridgeRouter/channelEpoch`` now);
    /// `nil` otherwise. Called once, by the call's settler (after a successful ``claim()``),
    /// which then holds the only reference.
    func takeAdmissionSnapshot(ifEpoch epoch: UInt64) -> BridgeRouter.ChannelSnapshot? {
        let snapshot = admissionSnapshot.take()
        return epoch == admissionEpoch ? snapshot : nil
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
