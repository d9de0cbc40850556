/// The scripts of a page generation whose document has not named itself yet, held in the order
/// they were sent until its document notice names it (docs/protocol.md, "Document notice").
///
/// Between a commit and the new document's notice (posted at document start, milliseconds
/// later) the router does not know the document, so a script sent then could not be bound to
/// it: sent at once, it would reach whatever document is on screen when the engine runs it,
/// also one that commits after it. So when the host announces documents (a notice named one
/// since the router was made) and the channel can bind scripts, such a script is held, and the
/// held scripts go out, in order, when one of these comes first:
/// - the notice names the document: bound to it;
/// - another document commits: none goes out (each is reported `navigated` by its sender);
/// - ``limit`` after the commit: unbound, as before notices existed (a document where WebKit
///   runs no user scripts never announces itself); the generation holds nothing after that;
/// - the router closes: unbound, through the channel that was connected.
///
/// One flusher sends them in the order they were held (``BridgeRouter/drainHeldScripts(epoch:)``),
/// one at a time, each after the engine evaluated the one before, so events emitted one after
/// another reach the page in that order. A script sent while it drains goes to the engine at once:
/// its sender did not wait for a held one (a sender awaits its own script), and making it queue too
/// kept steady traffic from several tasks one script per engine round trip for as long as it
/// lasted (an outside attack, `DocumentWaitAttackTests`). ``BridgeRouter/close()`` waits for a
/// running flusher, so the queue is empty before the final replies of close go out.
///
/// A value-type state machine guarded by the router's lock (``RouterState/documentWait``); its
/// events return what to do outside the lock. Generic over what it holds (the router's
/// ``BridgeRouter/HeldScript``), so that its transitions are tested with plain values.
struct DocumentWait<Held: Sendable>: Sendable {
    /// How long after a commit the scripts of its generation wait for the document's notice:
    /// 1 second unless a test sets another.
    var limit: Duration = .seconds(1)

    enum Phase: Sendable, Equatable {
        /// Scripts go to the engine at once: the document is named, the generation's wait is
        /// over, or the host does not announce documents.
        case open
        /// The generation's document is not named yet: scripts are held.
        case holding
        /// The held scripts are going out in order; scripts sent meanwhile go to the engine at once.
        case draining
    }

    /// What the router does after an event, outside its lock.
    enum Action: Sendable {
        case none
        /// Start a flusher for `epoch` (``BridgeRouter/drainHeldScripts(epoch:)``).
        case drain(epoch: UInt64)
    }

    private(set) var phase: Phase = .open
    /// The held scripts; the next to go out is at ``head``.
    private var queue: [Held] = []
    private var head = 0
    /// Whether a document notice named a document since the router was made.
    private(set) var announcesDocuments = false
    /// Grows with every generation: a flusher of an earlier one stops.
    private(set) var epoch: UInt64 = 0
    /// When the current generation's wait ends.
    private(set) var deadline: ContinuousClock.Instant?
    /// Ends the wait at ``deadline``; started with the generation's first held script.
    private var timer: Task<Void, Never>?
    /// The channel connected when the router closed, for the scripts held then.
    private(set) var closingChannel: PageChannel?
    /// Who waits for the drain of an epoch to end (``BridgeRouter/close()`` while a flusher runs).
    private var drainWaiters: [(epoch: UInt64, waiter: CheckedContinuation<Void, Never>)] = []

    /// How many scripts are held.
    var count: Int { queue.count - head }

    /// Whether a script of the current generation, sent now, must join the queue.
    /// - Parameter canBind: whether its channel can evaluate a script bound to a document.
    func mustHold(canBind: Bool) -> Bool {
        switch phase {
        case .open: false
        // A script that cannot be bound still joins a queue that holds scripts: it must not
        // overtake them.
        case .holding: canBind || count > 0
        case .draining: false
        }
    }

    /// A document notice named a document.
    /// - Returns: whether a generation that waited for it holds scripts to send now.
    mutating func documentNamed() -> Action {
        announcesDocuments = true
        return release()
    }

    /// A new generation started (a commit, a notice of another document).
    /// - Parameters:
    ///   - documentNamed: whether its document is already named (a notice started it).
    ///   - now: when it started.
    /// - Returns: the scripts of the generation it replaced, to be let go (`nil`): their senders
    ///   find their generation ended.
    mutating func generationStarted(documentNamed: Bool, at now: ContinuousClock.Instant) -> [Held] {
        let replaced = takeQueue()
        epoch &+= 1
        phase = announcesDocuments && !documentNamed ? .holding : .open
        deadline = now.advanced(by: limit)
        return replaced
    }

    /// Holds `held` (the caller checked ``mustHold(canBind:)`` under the same lock).
    /// - Parameter deadlinePassed: what the timer does at the generation's deadline; started
    ///   with the first script the generation holds.
    mutating func hold(_ held: Held, deadlinePassed: @escaping @Sendable (_ epoch: UInt64) async -> Void) {
        queue.append(held)
        guard timer == nil, phase == .holding, let deadline else { return }
        let epoch = epoch
        timer = Task {
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            await deadlinePassed(epoch)
        }
    }

    /// The generation `epoch`'s deadline passed.
    /// - Returns: whether its held scripts go out now (unbound).
    mutating func deadlinePassed(epoch: UInt64) -> Action {
        guard epoch == self.epoch else { return .none }
        return release()
    }

    /// The router closed.
    /// - Parameter channel: the channel that was connected.
    /// - Returns: whether held scripts go out now (through `channel`).
    mutating func closed(channel: PageChannel?) -> Action {
        closingChannel = channel
        return release()
    }

    /// The next script for the flusher of `epoch`, with the channel to use when the router
    /// closed meanwhile; `nil` when there is none (the queue is open again) or the flusher's
    /// generation has ended.
    mutating func next(epoch: UInt64) -> (Held, PageChannel?)? {
        guard epoch == self.epoch, phase == .draining else { return nil }
        guard head < queue.count else {
            phase = .open
            queue = []
            head = 0
            return nil
        }
        let held = queue[head]
        head += 1
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return (held, closingChannel)
    }

    /// Registers `waiter` to be resumed when the drain of `epoch` ends.
    /// - Returns: `false` when that drain is not running (the caller resumes it).
    mutating func waitForDrainEnd(epoch: UInt64, _ waiter: CheckedContinuation<Void, Never>) -> Bool {
        guard epoch == self.epoch, phase == .draining else { return false }
        drainWaiters.append((epoch, waiter))
        return true
    }

    /// The flusher of `epoch` stopped.
    /// - Returns: the waiters of that drain, to be resumed.
    mutating func drainEnded(epoch: UInt64) -> [CheckedContinuation<Void, Never>] {
        let ended = drainWaiters.filter { $0.epoch == epoch }.map(\.waiter)
        drainWaiters.removeAll { $0.epoch == epoch }
        return ended
    }

    /// Ends the holding of the current generation: its scripts go out.
    private mutating func release() -> Action {
        timer?.cancel()
        timer = nil
        guard phase == .holding else { return .none }
        if count == 0 {
            phase = .open
            return .none
        }
        phase = .draining
        return .drain(epoch: epoch)
    }

    private mutating func takeQueue() -> [Held] {
        timer?.cancel()
        timer = nil
        defer {
            queue = []
            head = 0
        }
        return Array(queue[head...])
    }
}
