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
/// The invariant behind "every call settles exactly once": a call's entry is inserted once,
/// and removed exactly once by whichever of reply, error, cancel, timeout, navigation or close
/// comes first; only the remover may answer.
struct RouterState: Sendable {
    var channel: PageChannel?
    var generation: UInt64 = 0
    var calls: [String: PendingCall] = [:]
    var pageCalls: [String: PendingPageCall] = [:]
    var nextPageCallNumber: UInt64 = 0
    var isClosed = false
    var observer: (@Sendable (TrafficRecord) -> Void)?

    /// Why a call was not admitted.
    enum AdmissionRefusal {
        case duplicateID
        case tooManyPendingCalls
    }

    /// Inserts `entry` as call `id`, unless another pending call has that id or the table is
    /// full (`limit` entries). One hash of the id in the usual case.
    /// - Returns: `nil` when admitted, otherwise why not (the table is then unchanged).
    mutating func admit(_ entry: PendingCall, as id: String, limit: Int) -> AdmissionRefusal? {
        if let existing = calls.updateValue(entry, forKey: id) {
            calls[id] = existing
            return .duplicateID
        }
        if calls.count > limit {
            calls[id] = nil
            return .tooManyPendingCalls
        }
        return nil
    }

    /// Removes `call` from the table if it is still the pending call of its id: a call's work, timer,
    /// cancel or progress limit settles only its own call, never a later one that reuses the id.
    /// - Returns: whether it was removed (the caller then settles it; nobody else can).
    mutating func take(_ call: PendingCall) -> Bool {
        guard let index = calls.index(forKey: call.id), calls.values[index] === call else { return false }
        calls.remove(at: index)
        call.settled = true
        return true
    }

    /// Removes and returns every call; used on navigation and close.
    mutating func takeAllCalls() -> [(String, PendingCall)] {
        let all = calls.map { ($0.key, $0.value) }
        for (_, call) in all { call.settled = true }
        calls.removeAll()
        return all
    }

    /// Removes and returns every native-to-page call.
    mutating func takeAllPageCalls() -> [PendingPageCall] {
        let all = Array(pageCalls.values)
        pageCalls.removeAll()
        return all
    }
}
