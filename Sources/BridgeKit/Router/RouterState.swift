import Foundation

/// A page call in flight.
struct PendingCall: Sendable {
    let taskName: String
    let generation: UInt64
    let source: MessageSource
    /// The structured reply path, when the final reply must go through it.
    let replyHandler: ReplyHandler?
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    var progressCount = 0
    /// Tells this entry from a later call that reuses the id; set by ``RouterState/admit(_:as:)``.
    var serial: UInt64 = 0
}

/// A native-to-page call in flight.
struct PendingPageCall: Sendable {
    let handler: String
    let generation: UInt64
    let continuation: CheckedContinuation<JSONValue, any Error>
    var timer: Task<Void, Never>?
}

/// Everything a router mutates, guarded by one `Mutex` in ``BridgeRouter``.
///
/// The invariant behind "every call settles exactly once": a call's entry is inserted once,
/// and removed exactly once by whichever of reply, error, cancel, timeout, navigation or close
/// comes first; only the remover may answer.
struct RouterState: Sendable {
    var tasks: [String: AnyBridgeTask] = [:]
    var channel: PageChannel?
    var generation: UInt64 = 0
    var calls: [String: PendingCall] = [:]
    var pageCalls: [String: PendingPageCall] = [:]
    var nextPageCallNumber: UInt64 = 0
    var nextCallSerial: UInt64 = 0
    var isClosed = false
    var observer: (@Sendable (TrafficRecord) -> Void)?

    /// Inserts `entry` as call `id` with a new serial number, and returns that number.
    mutating func admit(_ entry: PendingCall, as id: String) -> UInt64 {
        nextCallSerial += 1
        var entry = entry
        entry.serial = nextCallSerial
        calls[id] = entry
        return nextCallSerial
    }

    /// Attaches `work` to call `id` if the call is still the one admitted as `serial`.
    /// - Returns: `false` when the call has already settled (or its id was reused): the caller
    ///   must cancel `work` itself, because whoever settled the call could not.
    mutating func attach(_ work: Task<Void, Never>, to id: String, serial: UInt64) -> Bool {
        // One hash of the id, and the entry changed in place.
        guard let index = calls.index(forKey: id), calls.values[index].serial == serial else { return false }
        calls.values[index].work = work
        return true
    }

    /// Removes and returns the call `id` if it is still pending in `generation`.
    mutating func take(_ id: String, generation: UInt64) -> PendingCall? {
        guard let index = calls.index(forKey: id), calls.values[index].generation == generation else { return nil }
        return calls.remove(at: index).value
    }

    /// Removes and returns every call; used on navigation and close.
    mutating func takeAllCalls() -> [(String, PendingCall)] {
        let all = calls.map { ($0.key, $0.value) }
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
