import Foundation
import Synchronization

/// A page call in flight.
///
/// A class, so that the router's table, the settling task and the log hand one reference
/// around instead of copying eight fields (and their reference counts) at each step. The
/// mutable fields are only touched with the router's state lock held (``RouterState``), or by
/// the one task that removed the entry from the table (``RouterState/take(_:id:)``).
final class PendingCall: @unchecked Sendable {
    let taskName: String
    let generation: UInt64
    let source: MessageSource
    /// The structured reply path, when the final reply must go through it.
    let replyHandler: ReplyHandler?
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    var progressCount = 0
    /// Set, with the router's state lock held, when the entry leaves the table
    /// (``RouterState/take(_:id:)``, ``RouterState/takeAllCalls()``): the call has
    /// settled, or is settling. Atomic so that ``RouterState/attach(_:to:)`` can skip the lock
    /// for a call that settled before its work was attached (an immediate task that never suspends).
    let settled = Atomic<Bool>(false)

    init(taskName: String, generation: UInt64, source: MessageSource, replyHandler: ReplyHandler?) {
        self.taskName = taskName
        self.generation = generation
        self.source = source
        self.replyHandler = replyHandler
    }
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

    /// Attaches `work` to `call` if it has not settled yet.
    /// - Returns: `false` when the call has already settled: the caller must cancel `work`
    ///   itself, because whoever settled the call could not.
    func attach(_ work: Task<Void, Never>, to call: PendingCall) -> Bool {
        if call.settled.load(ordering: .acquiring) { return false }
        call.work = work
        return true
    }

    /// Removes `call` from the table if it is still the pending call `id`: a call's work, timer,
    /// cancel or progress limit settles only its own call, never a later one that reuses the id.
    /// - Returns: whether it was removed (the caller then settles it; nobody else can).
    mutating func take(_ call: PendingCall, id: String) -> Bool {
        guard let index = calls.index(forKey: id), calls.values[index] === call else { return false }
        calls.remove(at: index)
        call.settled.store(true, ordering: .releasing)
        return true
    }

    /// Removes and returns every call; used on navigation and close.
    mutating func takeAllCalls() -> [(String, PendingCall)] {
        let all = calls.map { ($0.key, $0.value) }
        for (_, call) in all { call.settled.store(true, ordering: .releasing) }
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
