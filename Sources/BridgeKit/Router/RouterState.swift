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
    var isClosed = false
    var observer: (@Sendable (TrafficRecord) -> Void)?

    /// Removes and returns the call `id` if it is still pending in `generation`.
    mutating func take(_ id: String, generation: UInt64) -> PendingCall? {
        guard let entry = calls[id], entry.generation == generation else { return nil }
        calls[id] = nil
        return entry
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
