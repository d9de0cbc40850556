import Foundation

/// A native-to-page call in flight.
struct PendingPageCall: Sendable {
    let handler: String
    let generation: UInt64
    let continuation: CheckedContinuation<JSONValue, any Error>
    var timer: Task<Void, Never>?
}

/// Everything a router mutates, guarded by its one lock (``BridgeRouter/state``, a `Locked`):
/// the page (channel, generation, observer), the calls in flight, and the registered tasks.
///
/// The invariant behind "every call settles exactly once": a call is in ``calls`` from its
/// admission until the event that settles it (``CallStateMachine``), which removes it under the
/// same lock; a navigation or close settles and removes every call at once.
struct RouterState: Sendable {
    var channel: PageChannel?
    var generation: UInt64 = 0
    /// The pending calls by id.
    var calls: [String: PendingCall] = [:]
    var pageCalls: [String: PendingPageCall] = [:]
    var nextPageCallNumber: UInt64 = 0
    var isClosed = false
    var observer: (@Sendable (TrafficRecord) -> Void)?
    /// The registered tasks by name.
    var taskTable = TaskTable()

    /// Why a call was not admitted.
    enum AdmissionRefusal {
        case duplicateID
        case tooManyPendingCalls
    }

    /// Inserts `entry` as call `id`, unless a pending call has that id or `limit` calls are
    /// pending. One hash of the id in the usual case.
    /// - Returns: `nil` when admitted, otherwise why not (the table then holds what it held).
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

    /// Applies `event` to `call` and, when the event settles it, removes it from ``calls``
    /// (unless a later call already uses its id: then that one stays).
    mutating func handle(_ event: CallStateMachine.Event, of call: PendingCall) -> CallStateMachine.Action {
        let action = call.machine.handle(event)
        if case .settle = action, let index = calls.index(forKey: call.id), calls[index].value === call {
            calls.remove(at: index)
        }
        return action
    }

    /// Settles every pending call with `event` (a navigation commit, close, release) and empties
    /// the table.
    /// - Returns: the calls with the actions to do for them.
    mutating func settleAllCalls(_ event: CallStateMachine.Event) -> [(PendingCall, CallStateMachine.Action)] {
        let settled = calls.values.map { call in (call, call.machine.handle(event)) }
        calls.removeAll()
        return settled
    }

    /// Removes and returns every native-to-page call.
    mutating func takeAllPageCalls() -> [PendingPageCall] {
        let all = Array(pageCalls.values)
        pageCalls.removeAll()
        return all
    }
}

extension PendingCall {
    /// Whether the call has settled; only with the router's state lock held.
    var isSettled: Bool { machine.isSettled }
}
