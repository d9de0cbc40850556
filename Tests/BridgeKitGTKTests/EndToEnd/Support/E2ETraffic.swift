#if WebKitGTK
import BridgeKit

/// The router's traffic log as a test reads it (`BridgeRouter.setTrafficObserver`).
final class TrafficLog: Sendable {
    private let records = Locked<[TrafficRecord]>([])

    /// The function to pass to `setTrafficObserver`.
    var observer: @Sendable (TrafficRecord) -> Void {
        { [records] record in records.update { $0.append(record) } }
    }

    /// Every record so far, in order.
    var all: [TrafficRecord] { records.value }

    /// The records of one kind and direction, optionally of one call id and/or task.
    func matching(_ direction: TrafficRecord.Direction, _ kind: String, id: String? = nil, task: String? = nil)
        -> [TrafficRecord]
    {
        all.filter { record in
            record.direction == direction && record.kind.rawValue == kind
                && (id == nil || record.id == id) && (task == nil || record.task == task)
        }
    }

    /// The ids of the inbound calls of `task` that the router accepted, in order.
    func acceptedCallIDs(task: String) -> [String] {
        matching(.inbound, "call", task: task).filter { $0.outcome == nil }.compactMap(\.id)
    }
}
#endif
