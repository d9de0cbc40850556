/// How many bytes of response bodies one web view's engine may hold for its web process before
/// the web process has taken them: the flow control of BridgeKit's outbound bodies (the asset
/// scheme's files, the byte transport's downloads), a value-type state machine whose events
/// return what the adapter must do next.
///
/// WebKit reads a URL scheme handler's body as fast as the handler gives it and queues each chunk
/// for the web process, with no back pressure: a page that fetched 16 files of 256 MiB made the
/// app hold 2.9 GiB and delayed its next navigation by 30 s, queued behind the bytes (found by an
/// attack on the asset scheme, `AssetSchemeFlowTests`). So an adapter asks the window before it
/// hands a chunk to the engine (``request(id:bytes:)``), and confirms what the web process took
/// with a *barrier*: a message to the same web process behind the chunks already sent (a
/// JavaScript evaluation; the engine delivers its messages in order), whose answer means every
/// byte handed before it was taken (``barrierReturned()``).
///
/// Rules:
/// - A chunk is admitted when nothing waits before it and it fits: the bytes handed and not yet
///   confirmed, with it, stay within ``budget``, or nothing is unconfirmed (a chunk larger than the
///   budget still moves, alone).
/// - Chunks that do not fit wait in the order they asked and are admitted as confirmations free
///   the budget (first come, first served: a large chunk is not overtaken by small ones forever).
/// - One barrier is in flight at a time. One is issued as soon as half the budget is unconfirmed,
///   so bytes keep moving while it travels, or when a chunk waits.
/// - A barrier that has not answered for a while (``barrierOverdue()``, which the adapter calls
///   every ``stallInterval`` while it waits) means the web process is not taking messages: a
///   synchronous `XMLHttpRequest`, whose body WebKit keeps in the app until it is complete, a busy
///   script, a dialog. Each overdue call admits up to one more budget, so a response the page
///   waits for synchronously still completes (found by attack 17: a synchronous request of 16 MiB,
///   or of 10 bytes while a large fetch streamed, never completed), and a stalled page costs the
///   app at most one budget per interval.
///
/// Not thread-safe: an adapter keeps it where it is confined (behind a lock, or on one actor).
package struct DeliveryWindow: Sendable {
    /// What the adapter does after an event.
    package struct Actions: Sendable, Equatable {
        /// The requests admitted by this event, in the order they asked: hand their chunks to the
        /// engine now.
        package var admitted: [Int] = []
        /// Whether to send a barrier now (and call ``barrierReturned()`` when it answers).
        package var issuesBarrier = false

        package init(admitted: [Int] = [], issuesBarrier: Bool = false) {
            self.admitted = admitted
            self.issuesBarrier = issuesBarrier
        }
    }

    /// How long a barrier may go unanswered before ``barrierOverdue()`` admits one more budget:
    /// 1 s, so a page stalled by a synchronous request waits about that long per 8 MiB, and a
    /// stalled page grows the app by at most a budget a second.
    package static let stallInterval: Duration = .seconds(1)

    /// The most bytes handed to the engine and not yet confirmed, unless a single chunk is larger.
    package let budget: Int
    /// Bytes handed to the engine since the window was made.
    private var handed: Int64 = 0
    /// Bytes the web process is known to have taken (confirmed by a barrier).
    private var confirmed: Int64 = 0
    /// ``handed`` when the barrier in flight was issued; nil when none is.
    private var barrierMark: Int64?
    /// The requests waiting for room, first come first.
    private var waiting: [(id: Int, bytes: Int)] = []

    /// Creates an empty window.
    /// - Parameter budget: the most bytes unconfirmed at once; at least 1.
    package init(budget: Int) {
        self.budget = max(1, budget)
    }

    /// Bytes handed to the engine and not yet confirmed.
    package var unconfirmedBytes: Int64 { handed - confirmed }

    /// The requests waiting for room.
    package var waitingCount: Int { waiting.count }

    /// Whether nothing is unconfirmed, waiting or being confirmed: the window may be dropped.
    package var isIdle: Bool { handed == confirmed && waiting.isEmpty && barrierMark == nil }

    /// Request `id` wants to hand `bytes` to the engine. It is admitted now (in
    /// ``Actions/admitted``) or waits for a later event to admit it.
    package mutating func request(id: Int, bytes: Int) -> Actions {
        var actions = Actions()
        if waiting.isEmpty, fits(bytes) {
            handed += Int64(max(0, bytes))
            actions.admitted.append(id)
        } else {
            waiting.append((id, max(0, bytes)))
        }
        actions.issuesBarrier = issueBarrierIfDue()
        return actions
    }

    /// The barrier in flight answered: every byte handed before it was issued is confirmed.
    /// Also when it failed (the web process or the view is gone), so nothing waits forever: the
    /// engine then drops what it held.
    package mutating func barrierReturned() -> Actions {
        guard let mark = barrierMark else { return Actions() }
        confirmed = max(confirmed, mark)
        barrierMark = nil
        var actions = Actions(admitted: admitWaiting())
        actions.issuesBarrier = issueBarrierIfDue()
        return actions
    }

    /// The barrier in flight has gone unanswered for another ``stallInterval``: admits waiting
    /// requests for up to one more budget, as if every byte handed so far were confirmed; the
    /// barrier stays in flight (no other is sent while it is). Nothing when no barrier is in
    /// flight.
    package mutating func barrierOverdue() -> Actions {
        guard barrierMark != nil else { return Actions() }
        confirmed = handed
        return Actions(admitted: admitWaiting())
    }

    /// Whether a barrier is in flight.
    package var isBarrierInFlight: Bool { barrierMark != nil }

    /// Request `id` no longer waits (its response was stopped); requests behind it may now fit.
    package mutating func withdraw(id: Int) -> Actions {
        waiting.removeAll { $0.id == id }
        var actions = Actions(admitted: admitWaiting())
        actions.issuesBarrier = issueBarrierIfDue()
        return actions
    }

    private func fits(_ bytes: Int) -> Bool {
        unconfirmedBytes == 0 || unconfirmedBytes + Int64(bytes) <= Int64(budget)
    }

    /// Admits waiting requests from the front while they fit.
    private mutating func admitWaiting() -> [Int] {
        var admitted: [Int] = []
        while let first = waiting.first, fits(first.bytes) {
            waiting.removeFirst()
            handed += Int64(first.bytes)
            admitted.append(first.id)
        }
        return admitted
    }

    /// Marks a barrier as issued when none is in flight and one is due.
    private mutating func issueBarrierIfDue() -> Bool {
        guard barrierMark == nil, handed > confirmed,
            !waiting.isEmpty || unconfirmedBytes * 2 >= Int64(budget)
        else { return false }
        barrierMark = handed
        return true
    }
}
