/// The place of native-to-page cancels among the scripts of their page generation
/// (``BridgeRouter/failPageCall(_:_:notifyPage:)``): what the app sends after `callPage` threw
/// reaches the page after that call's cancel.
///
/// A cancel is numbered when native gives up on a call already handed to the engine, before
/// `callPage` throws, and it is in flight until the engine returned from its evaluation. A script
/// of the same generation sent meanwhile waits, once, for the cancels numbered before it
/// (``barrier(generation:)``), never for one numbered after it, so a steady run of cancels cannot
/// starve it. Cancels hold only their own generation: a script for a later document, and the
/// final replies `close()` sends, never wait for the cancel of a document that is gone (whose
/// engine may never return). A script whose call settles meanwhile stops waiting (``ended(_:)``:
/// it is then dropped), and none waits longer than ``limit``: an engine that does not return from
/// a cancel (a page stuck in a loop) holds nothing, and no memory, for longer. A final reply
/// that a reply handler carries waits too (``BridgeRouter/settle(_:_:by:)``): the task may have
/// awaited `callPage`, or been cancelled out of one.
///
/// A value-type state machine guarded by the router's lock (``RouterState/cancelOrder``); its
/// events return the waiters to resume outside the lock. Generic over the waiter, so that its
/// transitions are tested with plain values.
struct CancelOrder<Waiter> {
    /// The number the next cancel gets.
    private var nextNumber: UInt64 = 1
    /// The cancels in flight: number → generation.
    private var inFlight: [UInt64: UInt64] = [:]
    /// The scripts waiting: their ticket, the newest cancel number they wait for, their
    /// generation, the waiter.
    private var waiters: [Entry] = []
    /// The ticket of the next waiter.
    private var nextTicket: UInt64 = 1
    /// How long a script waits at most for the cancels before it: 1 second unless a test sets
    /// another.
    var limit: Duration = .seconds(1)

    /// A waiting script (``wait(upTo:generation:owner:_:)``).
    struct Entry {
        let ticket: UInt64
        /// The call the script belongs to (``BridgeRouter/OutgoingScript/owner``), if any.
        let owner: ScriptOwner?
        let upTo: UInt64
        let generation: UInt64
        let waiter: Waiter
    }

    /// How many cancels are in flight.
    var count: Int { inFlight.count }
    /// How many scripts wait.
    var waiting: Int { waiters.count }

    /// Numbers a cancel of `generation` that goes to the engine now.
    /// - Returns: its number, for ``delivered(_:)``.
    mutating func begin(generation: UInt64) -> UInt64 {
        let number = nextNumber
        nextNumber += 1
        inFlight[number] = generation
        return number
    }

    /// The newest cancel of `generation` in flight, which a script of that generation sent now
    /// waits for (``wait(upTo:generation:owner:_:)``); `nil` when there is none (the usual case: no
    /// cancel in flight at all, one check).
    func barrier(generation: UInt64) -> UInt64? {
        guard !inFlight.isEmpty else { return nil }
        return inFlight.lazy.filter { $0.value == generation }.map(\.key).max()
    }

    /// Registers `waiter` until the cancels of `generation` up to number `upTo` were evaluated,
    /// its `owner` call ended (``ended(_:)``), or ``limit`` passed (``expired(_:)``).
    /// - Returns: its ticket; `nil` when none of them is in flight any more (the caller resumes it).
    mutating func wait(upTo: UInt64, generation: UInt64, owner: ScriptOwner? = nil, _ waiter: Waiter) -> UInt64? {
        guard let oldest = oldestInFlight(generation: generation), oldest <= upTo else { return nil }
        let ticket = nextTicket
        nextTicket += 1
        waiters.append(Entry(ticket: ticket, owner: owner, upTo: upTo, generation: generation, waiter: waiter))
        return ticket
    }

    /// The call `owner` settled: its scripts stop waiting (they are dropped, ``RouterState/handOver(_:)``).
    /// - Returns: their waiters.
    mutating func ended(_ owner: ScriptOwner) -> [Waiter] {
        release { $0.owner == owner }
    }

    /// The waiter with `ticket` waited ``limit``.
    /// - Returns: it, unless it was released before.
    mutating func expired(_ ticket: UInt64) -> Waiter? {
        release { $0.ticket == ticket }.first
    }

    /// The engine returned from the evaluation of cancel `number` (or failed it).
    /// - Returns: the waiters that no longer wait for anything.
    mutating func delivered(_ number: UInt64) -> [Waiter] {
        guard let generation = inFlight.removeValue(forKey: number) else { return [] }
        let oldest = oldestInFlight(generation: generation)
        return release { entry in entry.generation == generation && (oldest.map { $0 > entry.upTo } ?? true) }
    }

    /// Generation `generation` started: the scripts of earlier ones stop waiting (they are not
    /// delivered to the new document anyway).
    /// - Returns: those waiters.
    mutating func generationStarted(_ generation: UInt64) -> [Waiter] {
        release { $0.generation < generation }
    }

    /// The router closed: no script waits any more.
    /// - Returns: every waiter.
    mutating func closed() -> [Waiter] {
        release { _ in true }
    }

    /// The oldest cancel of `generation` in flight.
    private func oldestInFlight(generation: UInt64) -> UInt64? {
        inFlight.lazy.filter { $0.value == generation }.map(\.key).min()
    }

    /// Removes and returns the waiters `isReleased` selects, in the order they came.
    private mutating func release(where isReleased: (Entry) -> Bool) -> [Waiter] {
        guard !waiters.isEmpty else { return [] }
        var released: [Waiter] = []
        var kept: [Entry] = []
        for entry in waiters {
            if isReleased(entry) { released.append(entry.waiter) } else { kept.append(entry) }
        }
        waiters = kept
        return released
    }
}

/// The call a script waiting for cancels belongs to (``CancelOrder/ended(_:)``): when it settles,
/// the script is no longer wanted.
enum ScriptOwner: Hashable, Sendable {
    /// A native-to-page call's own script, by the call's id.
    case pageCall(String)
    /// A progress of a page's call, by the call's id.
    case progress(String)
}

extension CancelOrder: Sendable where Waiter: Sendable {}
extension CancelOrder.Entry: Sendable where Waiter: Sendable {}
