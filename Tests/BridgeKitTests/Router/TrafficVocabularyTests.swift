import BridgeKit
import Foundation
import Testing

/// Kind of fault: a log reader (bridgehost's JSON lines, an app's own logging) sees different text
/// once the record's kind and reason are enums.
@Suite("Traffic records: kinds and reasons are enums with the same text")
struct TrafficVocabularyTests {
    static let reasons: [TrafficReason] = [
        .navigated, .noChannel, .noReplyPath, .notDelivered, .fireAndForget, .subframeNotDelivered,
        .evaluateFailed("JavaScript exception: x"), .refused("origin_not_allowed"), .refused("subframe"),
    ]

    @Test("each reason reads back from its text; the texts are the log's")
    func reasonsRoundTrip() {
        for reason in Self.reasons { #expect(TrafficReason(reason.description) == reason) }
        #expect(
            Self.reasons.map(\.description) == [
                "navigated", "no_channel", "no_reply_path", "not_delivered", "fire_and_forget",
                "subframe_not_delivered", "evaluate_failed: JavaScript exception: x", "origin_not_allowed", "subframe",
            ])
    }

    @Test("a record encodes its kind and reason as the same JSON strings, and decodes back")
    func recordJSON() throws {
        let record = TrafficRecord(
            time: Date(timeIntervalSince1970: 0), direction: .outbound, kind: .reply, id: "1", task: "t",
            outcome: "ok", reason: .evaluateFailed("gone"), bytes: 3)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any]
        #expect(json?["kind"] as? String == "reply")
        #expect(json?["reason"] as? String == "evaluate_failed: gone")
        #expect(try JSONDecoder().decode(TrafficRecord.self, from: JSONEncoder().encode(record)) == record)
        for kind in [TrafficKind.call, .cancel, .reply, .progress, .event, .tasks] {
            #expect(kind.description == kind.rawValue)
        }
    }

    /// A new user's trial: a printed record was Swift's dump (`direction:
    /// BridgeKit.TrafficRecord.Direction.inbound, … id: Optional("…")`).
    @Test("a printed record is one readable line of what is set")
    func readableLine() {
        let refused = TrafficRecord(
            direction: .inbound, kind: .call, id: "p-1", task: "Cart.add", outcome: "forbidden",
            reason: .refused("origin_not_allowed"), bytes: 61)
        #expect("\(refused)" == "in call p-1 Cart.add → forbidden (origin_not_allowed) 61 B")
        let failed = TrafficRecord(
            direction: .outbound, kind: .reply, id: "p-2", task: "Sync", outcome: "task_failed", bytes: 80,
            internalError: "DiskFull()")
        #expect("\(failed)" == "out reply p-2 Sync → task_failed 80 B [internal: DiskFull()]")
        #expect("\(TrafficRecord(direction: .outbound, kind: .event))" == "out event 0 B")
    }
}
