import BridgeKit
import Foundation
import Synchronization
import Testing

/// What an error BridgeKit writes repeats of the page's own text: at most 256 bytes of UTF-8 of
/// any one text (a task name, a message kind, a member name in the options' path), then "…".
/// Repeated whole, a body of 16 MiB that was one task name came back twice, 32 MiB (found while
/// attacking the id limit of attack 18).
@Suite("Router: the page's text in errors")
struct QuotedPageTextTests {
    static let huge = String(repeating: "x", count: 1 << 20)

    struct Shape: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let body: @Sendable (String) -> String
        let code: String
        /// What the error's text has before the page's (the path's first member).
        var prefix = ""
    }

    struct Counts: Decodable {
        var counts: [String: Int]
    }

    static let count = ClosureTask(name: "count") { (options: Counts, _: CallContext) -> Int in options.counts.count }

    static let shapes: [Shape] = [
        Shape(
            testDescription: "an unknown task's name",
            body: { #"{"v":1,"kind":"call","id":"a1","task":"\#($0)","options":null}"# }, code: "unknown_task"),
        Shape(
            testDescription: "an unknown task's name in a legacy call",
            body: { #"{"task":"\#($0)","callbackId":"a1"}"# }, code: "unknown_task"),
        Shape(
            testDescription: "an unknown message kind",
            body: { #"{"v":1,"kind":"\#($0)","id":"a1","task":"count"}"# }, code: "invalid_message"),
        Shape(
            testDescription: "a member name in the options' path",
            body: { #"{"v":1,"kind":"call","id":"a1","task":"count","options":{"counts":{"\#($0)":"one"}}}"# },
            code: "invalid_options", prefix: "counts."),
    ]

    /// Routes `body` from the allowed main frame and returns the answer (waits up to 5 s).
    static func answer(_ body: String) async throws -> String {
        try #require(try await answers(to: body, on: try makeRouter([Self.count])).first ?? nil)
    }

    /// The answer's error: its code, its message and the one text in its details.
    static func error(in answer: String) throws -> (code: String, message: String, detail: String) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        let details = try #require(error["details"] as? [String: Any])
        return (
            try #require(error["code"] as? String), try #require(error["message"] as? String),
            try #require(details.values.first as? String)
        )
    }

    @Test("a text of 1 MiB comes back as its first 253 bytes and an ellipsis", arguments: shapes)
    func long(_ shape: Shape) async throws {
        let answer = try await Self.answer(shape.body(Self.huge))
        #expect(answer.utf8.count < 2048, "answered \(answer.utf8.count) bytes")
        let error = try Self.error(in: answer)
        #expect(error.code == shape.code)
        #expect(error.detail == String((shape.prefix + Self.huge).prefix(253)) + "…", "\(error.detail.prefix(300))")
        #expect(error.message.utf8.count < 512, "\(error.message.prefix(300))")
    }

    @Test("a text of at most 256 bytes comes back whole", arguments: shapes)
    func whole(_ shape: Shape) async throws {
        let name = String(repeating: "é", count: 124)  // 248 bytes, 255 with the path's "counts."
        let error = try Self.error(in: try await Self.answer(shape.body(name)))
        #expect(error.code == shape.code)
        #expect(error.detail == shape.prefix + name, "\(error.detail)")
        #expect(error.message.contains(name) && !error.message.contains("…"), "\(error.message)")
    }

    @Test("the traffic log keeps at most 256 bytes of a text the page sent", arguments: shapes)
    func trafficLog(_ shape: Shape) async throws {
        let router = try makeRouter([Self.count])
        let records = Mutex<[TrafficRecord]>([])
        router.setTrafficObserver { record in records.withLock { $0.append(record) } }
        _ = try await answers(to: shape.body(Self.huge), on: router, settle: .milliseconds(50))
        let logged = records.withLock { $0 }
        #expect(!logged.isEmpty)
        for record in logged {
            // The app's observer keeps what it is given: a 1 MiB task name was logged whole.
            #expect(record.description.utf8.count < 1024, "\(record.description.prefix(300))")
            #expect((record.task?.utf8.count ?? 0) <= 256)
        }
    }

    @Test("an excerpt ends between Unicode scalars, never inside one")
    func scalarBoundary() async throws {
        // 84 three-byte scalars are 252 bytes; the 85th does not fit in 253.
        let name = String(repeating: "字", count: 90)
        let answer = try await Self.answer(#"{"v":1,"kind":"call","id":"a1","task":"\#(name)"}"#)
        #expect(try Self.error(in: answer).detail == String(repeating: "字", count: 84) + "…")
    }
}
