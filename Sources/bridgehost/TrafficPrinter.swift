import BridgeKit
import Foundation
import Synchronization

/// Prints one JSON object per line on standard output: the traffic log, what the alert presenter
/// showed, history notices and a final summary.
final class TrafficPrinter: Sendable {
    private let start = Date()
    private let lock = Mutex(())

    /// Prints a traffic record as `{"time":…,"direction":…,"kind":…,"id":…,"task":…,"outcome":…,"bytes":…}`.
    func print(_ record: TrafficRecord) {
        var line: [String: JSONValue] = [
            "time": .double((record.time.timeIntervalSince(start) * 1e6).rounded() / 1e6),
            "direction": .string(record.direction.rawValue),
            "kind": .string(record.kind),
            "bytes": .int(Int64(record.bytes)),
        ]
        line["id"] = record.id.map(JSONValue.string) ?? .null
        line["task"] = record.task.map(JSONValue.string) ?? .null
        line["outcome"] = record.outcome.map(JSONValue.string) ?? .null
        if let reason = record.reason { line["reason"] = .string(reason) }
        emit(.object(line))
    }

    /// Prints a host event such as an alert or a history notice.
    func event(_ name: String, _ fields: [String: JSONValue]) {
        var line = fields
        line["time"] = .double((Date().timeIntervalSince(start) * 1e6).rounded() / 1e6)
        line["event"] = .string(name)
        emit(.object(line))
    }

    private func emit(_ value: JSONValue) {
        guard let data = try? BridgeJSON.encode(value) else { return }
        lock.withLock { _ in
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
