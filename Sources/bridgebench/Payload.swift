import Foundation

/// One record of a benchmark payload: the kind of small object a page sends in bulk.
struct BenchRecord: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var score: Double
    var active: Bool
    var tags: [String]
}

/// The benchmark task's options and result: a label and a list of records. Typed on purpose,
/// so the router decodes into (and encodes from) real Swift types, like a real task.
struct BenchPayload: Codable, Sendable, Equatable {
    var label: String
    var records: [BenchRecord]

    /// A payload whose JSON text (as `JSONEncoder` writes it) is close to `bytes` long: records are
    /// added while they fit and the label pads the rest. Every tenth record has a name with `<`,
    /// quotes and non-ASCII text, so the script builder's escaping is exercised as in real data.
    static func make(bytes: Int) -> BenchPayload {
        var payload = BenchPayload(label: "", records: [])
        let empty = (try? JSONEncoder().encode(payload).count) ?? 25
        var size = empty
        var index = 0
        while true {
            let record = Self.record(index)
            let recordSize = ((try? JSONEncoder().encode(record).count) ?? 100) + (index == 0 ? 0 : 1)
            if size + recordSize > bytes { break }
            payload.records.append(record)
            size += recordSize
            index += 1
        }
        payload.label = String(repeating: "x", count: max(0, bytes - size))
        return payload
    }

    /// A payload that is mostly one long string, like a file or an image sent as base64: a few
    /// records and a label of base64 characters, `bytes` long in all as JSON text.
    static func text(bytes: Int) -> BenchPayload {
        var payload = BenchPayload(label: "", records: (0..<4).map(record))
        let size = (try? JSONEncoder().encode(payload).count) ?? 400
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<max(0, bytes - size)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return alphabet[Int(state >> 58)]
        }
        payload.label = String(decoding: bytes, as: UTF8.self)
        return payload
    }

    private static func record(_ index: Int) -> BenchRecord {
        let name = index % 10 == 0 ? "Record \(index) <b>\"Grüße\"</b> ✓" : "Record number \(index)"
        return BenchRecord(
            id: index, name: name, score: Double(index % 1000) / 8, active: index % 3 == 0,
            tags: index % 2 == 0 ? ["alpha", "beta"] : ["gamma"])
    }
}

/// The payload sizes the benchmark uses, with their labels.
struct PayloadSize: Sendable {
    let label: String
    let bytes: Int

    static let b100 = PayloadSize(label: "100 B", bytes: 100)
    static let kb10 = PayloadSize(label: "10 KB", bytes: 10 * 1024)
    static let mb1 = PayloadSize(label: "1 MB", bytes: 1024 * 1024)
    static let mb8 = PayloadSize(label: "8 MB", bytes: 8 * 1024 * 1024)
    static let kb1 = PayloadSize(label: "1 KB", bytes: 1024)
    static let kb64 = PayloadSize(label: "64 KB", bytes: 64 * 1024)
}
