/// When the router answers senders its own policy does not admit (their refusals and
/// acknowledgements: ``BridgeRouter/pacedReplyHandler(_:for:)``): a token bucket of
/// ``BridgeLimits/refusalBurst`` answers refilled at ``BridgeLimits/refusalsPerSecond``, shared by
/// every such sender of the router's web view, with the answers over it held in arrival order
/// until the bucket has room (docs/protocol.md, "Relay: flow control").
///
/// Why: the relay lets a frame post as fast as the app answers (``WebBridgeRelay``), and the app
/// answered a refused frame's posts at once, so one third-party iframe posting without pause kept
/// the app reading and refusing about 1.3 of 2 cores (attack 20). A held answer leaves the frame's
/// window of unread posts full, so the frame waits in its own process. Every answer is still given
/// exactly once: held ones in order as the bucket refills, all at once when the router closes.
/// (Attack 20's flood called a task nobody registered, from a frame that a task open to every
/// frame admits: pacing only senders that no policy at all admits left it unpaced.)
///
/// A value type: its events return what to do, and the router does it outside its lock. Times
/// are `ContinuousClock` instants passed in, so a test states them.
struct RefusalPacing<Answer> {
    /// The most answers held at once: 1,024. Past it an answer is given at once, out of order:
    /// what the app holds stays bounded when a sender's posts are not windowed (Apple's page-world
    /// handlers), at the cost of pacing.
    static var maxHeld: Int { 1024 }

    /// The bucket's size (at least 1) and refill rate (``BridgeLimits``); a rate of 0 or less
    /// paces nothing.
    let burst: Int
    let perSecond: Int
    private var tokens: Double
    private var refilled: ContinuousClock.Instant?
    /// The held answers, oldest first.
    private var held = FIFOQueue<Answer>()
    /// Whether a drain (``next(now:)`` in a loop) is under way.
    private(set) var isDraining = false

    init(burst: Int, perSecond: Int) {
        self.burst = max(burst, 1)
        self.perSecond = perSecond
        self.tokens = Double(max(burst, 1))
    }

    /// How many answers are held.
    var heldCount: Int { held.count }

    /// What to do with an answer that just became due.
    enum Arrival {
        /// Give it now.
        case answer
        /// It is held; nothing to do.
        case held
        /// It is held; start the drain (``next(now:)`` in a loop until it says `.done`).
        case startDrain
    }

    /// An answer became due at `now`: given now while the bucket has a token and nothing is
    /// held before it, else held (given now past ``maxHeld``).
    mutating func arrive(_ answer: Answer, now: ContinuousClock.Instant) -> Arrival {
        guard perSecond > 0 else { return .answer }
        refill(now: now)
        if heldCount == 0, tokens >= 1 {
            tokens -= 1
            return .answer
        }
        if heldCount >= Self.maxHeld { return .answer }
        held.append(answer)
        if isDraining { return .held }
        isDraining = true
        return .startDrain
    }

    /// The drain's next step.
    enum Step {
        /// Give this answer, then ask again.
        case answer(Answer)
        /// Ask again after this long.
        case wait(Duration)
        /// Nothing is held; the drain ends.
        case done
    }

    /// The drain's next step at `now`.
    mutating func next(now: ContinuousClock.Instant) -> Step {
        guard !held.isEmpty else {
            isDraining = false
            _ = held.removeAll()
            return .done
        }
        refill(now: now)
        guard tokens >= 1, let answer = held.popFirst() else {
            return .wait(.seconds((1 - tokens) / Double(max(perSecond, 1))))
        }
        tokens -= 1
        return .answer(answer)
    }

    /// Every held answer, oldest first; the drain then ends at its next step. For the router's
    /// close.
    mutating func takeAll() -> [Answer] {
        held.removeAll()
    }

    private mutating func refill(now: ContinuousClock.Instant) {
        guard let refilled else {
            self.refilled = now
            return
        }
        guard now > refilled else { return }
        self.refilled = now
        let elapsed = refilled.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(Double(burst), tokens + seconds * Double(perSecond))
    }
}

extension RefusalPacing: Sendable where Answer: Sendable {}
extension RefusalPacing.Step: Equatable where Answer: Equatable {}
