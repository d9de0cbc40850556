import BridgeKit
import BridgeTasks
import Foundation
import Synchronization
import Testing

/// A call's id is at most 256 bytes of UTF-8 (docs/protocol.md, "call"). Every answer repeats its
/// call's id, so without a limit a page that sent a 15 MiB id made the app write, scan and send
/// back 15 MiB per body: 64 such bodies from one view held up another view's calls for seconds
/// (attack 18). A longer id is no id: the message is logged `invalid_message` under none, never
/// run and never answered, whichever way the router reads it.
@Suite("Router: the longest call id")
struct CallIDLimitTests {
    static let longID = String(repeating: "x", count: 257)
    static let longestID = String(repeating: "y", count: 256)

    /// What the router did with one message: the answers its reply handler got, its log, and
    /// whether a task ran.
    struct Outcome {
        var answers: [String?]
        var records: [TrafficRecord]
        var ran: Bool
    }

    /// One shape of message with `id` in it, and how the router reads it.
    struct Shape: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let body: @Sendable (String) -> String
    }

    static let shapes: [Shape] = [
        Shape(testDescription: "a plain call of an asynchronous task (the fast scan)") {
            #"{"v":1,"kind":"call","id":"\#($0)","task":"count","options":null}"#
        },
        Shape(testDescription: "a plain call of a synchronous task (the one-pass step)") {
            #"{"v":1,"kind":"call","id":"\#($0)","task":"Echo","options":{"a":1}}"#
        },
        Shape(testDescription: "a call in another member order (the general path)") {
            #"{"task":"count","id":"\#($0)","v":1,"kind":"call"}"#
        },
        Shape(testDescription: "a legacy call with callbackId") {
            #"{"task":"count","callbackId":"\#($0)"}"#
        },
        Shape(testDescription: "a call of an unknown task") {
            #"{"v":1,"kind":"call","id":"\#($0)","task":"nope","options":null}"#
        },
        Shape(testDescription: "a body that is not JSON") {
            #"{"id":"\#($0)","task":"count","#
        },
        Shape(testDescription: "a body with only an id") {
            #"{"id":"\#($0)"}"#
        },
    ]

    /// Routes `body` from the allowed main frame, waiting (up to 5 s) for its reply handler to be
    /// answered, then 50 ms more for anything else.
    static func route(_ body: String) async throws -> Outcome {
        let ran = Mutex(false)
        let count = ClosureTask(name: "count") { (_: NoOptions, _: CallContext) -> Int in
            ran.withLock { $0 = true }
            return 1
        }
        let router = try makeRouter([count, EchoTask()])
        let records = Mutex<[TrafficRecord]>([])
        router.setTrafficObserver { record in records.withLock { $0.append(record) } }
        let answers = try await answers(to: body, on: router, settle: .milliseconds(50))
        return Outcome(answers: answers, records: records.withLock { $0 }, ran: ran.withLock { $0 })
    }

    @Test("an id of 257 bytes is no id: logged invalid_message, not run, answered with nothing", arguments: shapes)
    func overLimit(_ shape: Shape) async throws {
        let outcome = try await Self.route(shape.body(Self.longID))
        #expect(!outcome.ran)
        #expect(outcome.answers.allSatisfy { ($0 ?? "").isEmpty }, "answered \(outcome.answers)")
        #expect(outcome.answers.count == 1, "the reply handler is settled once: \(outcome.answers)")
        #expect(outcome.records.allSatisfy { $0.id == nil }, "\(outcome.records.map(\.id))")
        #expect(outcome.records.contains { $0.outcome == "invalid_message" }, "\(outcome.records.map(\.outcome))")
    }

    @Test("an id of 256 bytes is answered under it", arguments: shapes)
    func atLimit(_ shape: Shape) async throws {
        let outcome = try await Self.route(shape.body(Self.longestID))
        #expect(outcome.answers.contains { ($0 ?? "").contains(Self.longestID) }, "answered \(outcome.answers)")
    }

    @Test("the head of a body the app did not read whole keeps its id only up to 256 bytes")
    func head() throws {
        let router = try makeRouter([])
        for (id, answered) in [(Self.longestID, true), (Self.longID, false)] {
            let answers = Mutex<[String?]>([])
            router.receiveHead(
                #"{"v":1,"kind":"call","id":"\#(id)","task":"count","options":"xxxx"#, byteCount: 32 << 20,
                reason: .overLimit, from: .mainFrame(appOrigin),
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.withLock { $0.append(json) } })
            let got = answers.withLock { $0 }
            #expect(got.count == 1)
            #expect((got.first??.contains(id) ?? false) == answered, "\(id.count) bytes: \(got)")
        }
    }
}
