import Foundation
import Synchronization

/// A native-to-page call in flight.
struct PendingPageCall: Sendable {
    let handler: String
    let generation: UInt64
    let continuation: CheckedContinuation<JSONValue, any Error>
    var timer: Task<Void, Never>?
}

/// Everything a router mutates about its page and calls, guarded by one `Mutex` in ``BridgeRouter``
/// (the task table has its own, ``BridgeRouter/taskTable``).
///
/// The invariant behind "every call settles exactly once": whichever of reply, error, cancel,
/// timeout, navigation or close comes first claims the call (``PendingCall/claim()``, atomic);
/// only the claimer may answer. A claimed call's entry stays in ``calls`` until its id is used
/// again, the table is swept (``sweepIfDue(limit:)``), or a navigation or close empties it: the
/// call's work settles it without taking this state's lock.
struct RouterState: Sendable {
    var channel: PageChannel?
    var generation: UInt64 = 0
    /// The calls by id: every pending call, and claimed ones not yet removed.
    var calls: [String: PendingCall] = [:]
    /// The table size that triggers the next sweep of claimed entries.
    private var nextSweep = RouterState.minimumSweep
    /// The smallest ``nextSweep``: a page's calls settle in bursts; sweeping every few calls
    /// would cost more than the lookups it spares.
    static let minimumSweep = 64
    var pageCalls: [String: PendingPageCall] = [:]
    var nextPageCallNumber: UInt64 = 0
    var isClosed = false
    var observer: (@Sendable (TrafficRecord) -> Void)?

    /// Why a call was not admitted.
    enum AdmissionRefusal {
        case duplicateID
        case tooManyPendingCalls
    }

    /// Inserts `entry` as call `id`, unless a pending (unclaimed) call has that id or `limit`
    /// calls are pending. One hash of the id in the usual case; a claimed entry of the same id is
    /// replaced.
    /// - Returns: `nil` when admitted, otherwise why not (the table then holds what it held).
    mutating func admit(_ entry: PendingCall, as id: String, limit: Int) -> AdmissionRefusal? {
        if let existing = calls.updateValue(entry, forKey: id), !existing.isSettled {
            calls[id] = existing
            return .duplicateID
        }
        sweepIfDue(limit: limit)
        if calls.count > limit {
            calls[id] = nil
            return .tooManyPendingCalls
        }
        return nil
    }

    /// The pending (unclaimed) call of `id`, if any.
    func pendingCall(_ id: String) -> PendingCall? {
        guard let call = calls[id], !call.isSettled else { return nil }
        return call
    }

    /// Removes the claimed entries when the table has grown to ``nextSweep`` or past `limit`,
    /// and sets the next sweep to twice the entries left (at least ``minimumSweep``), so each
    /// admission pays for a constant share of the sweeping.
    private mutating func sweepIfDue(limit: Int) {
        guard calls.count >= nextSweep || calls.count > limit else { return }
        calls = calls.filter { !$0.value.isSettled }
        nextSweep = max(Self.minimumSweep, 2 * calls.count)
    }

    /// Empties the table and returns the calls this caller claimed (every one not claimed
    /// before); used on navigation, close and release.
    mutating func takeAllCalls() -> [(String, PendingCall)] {
        let claimed = calls.compactMap { $0.value.claim() ? ($0.key, $0.value) : nil }
        calls.removeAll()
        nextSweep = Self.minimumSweep
        return claimed
    }

    /// Removes and returns every native-to-page call.
    mutating func takeAllPageCalls() -> [PendingPageCall] {
        let all = Array(pageCalls.values)
        pageCalls.removeAll()
        return all
    }
}
