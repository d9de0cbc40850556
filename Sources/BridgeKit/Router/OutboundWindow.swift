/// How many progress values and events a router has on their way to its page at once
/// (``BridgeLimits/maxOutboundInFlight``): a sender takes a place before its value is encoded and
/// gives it back once the engine evaluated the script (or the script was dropped). Senders past
/// the window wait their turn in arrival order, each handed a place as one is given back; a
/// sender whose Swift task is cancelled while it waits leaves the queue (``withdraw(where:)``).
///
/// Why: a task's parallel workers sending progress, or the app emitting events from many Swift
/// tasks at once, each held their encoded message and its script until the engine took it. With
/// no bound, 4,000 progress values of 64 KiB sent at once grew the app by about 780 MiB (attack
/// 25, F5). A waiting sender holds only its own value, as it did before it called; what the router
/// adds is at most the window's messages.
///
/// A value type: its events return what to do, and the router does it outside its lock.
struct OutboundWindow<Waiter> {
    /// The most places; 0 or less: no window (every sender goes at once).
    let size: Int
    /// The places taken now.
    private(set) var taken = 0
    /// The senders waiting for a place, oldest first.
    private var waiting = FIFOQueue<Waiter>()
    /// Whether the window was closed (``close()``): every sender goes at once from then on.
    private(set) var isClosed = false

    init(size: Int) {
        self.size = size
    }

    /// How many senders wait for a place.
    var waitingCount: Int { waiting.count }

    /// A sender asks for a place: `true` when it has one now; `false` when it waits, to be handed
    /// one by ``giveBack()`` (nothing waits before it, so the order of arrival holds).
    mutating func take(_ waiter: Waiter) -> Bool {
        guard size > 0, !isClosed else { return true }
        if taken < size, waiting.isEmpty {
            taken += 1
            return true
        }
        waiting.append(waiter)
        return false
    }

    /// A sender gives its place back: the oldest waiting sender, to resume, now has it; `nil`
    /// when none waits (the place is free).
    mutating func giveBack() -> Waiter? {
        guard size > 0, !isClosed else { return nil }
        guard let next = waiting.popFirst() else {
            taken = max(taken - 1, 0)
            return nil
        }
        return next
    }

    /// A waiting sender leaves before its turn (its Swift task was cancelled): it is taken out of
    /// the queue and takes no place.
    /// - Returns: the sender, to resume as let go; `nil` when it no longer waits (it was handed a
    ///   place or let go by ``close()`` first, and was resumed then).
    mutating func withdraw(where isSender: (Waiter) -> Bool) -> Waiter? {
        waiting.remove(where: isSender)
    }

    /// The router closed: every waiting sender, to resume now, in order; later senders go at once.
    mutating func close() -> [Waiter] {
        isClosed = true
        taken = 0
        return waiting.removeAll()
    }
}

extension OutboundWindow: Sendable where Waiter: Sendable {}
