import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a refusal answered from an unstructured task waits for a free thread of the
/// cooperative pool. Under heavy load the engine's reply handler stays unanswered for as long as
/// the pool is busy (issue 20, item 10: the router fuzz target saw a handler still unanswered
/// after its wait), and `close()` cannot wait for it because a refused call is in no table.
/// Every refusal that needs no suspension is answered before `receive` returns.
@Suite("Reliability: refusals answered before receive returns")
struct RefusalTimingTests {
    /// Bodies the router refuses, each naming an id, with the source that sends them.
    static let refusals: [(name: String, body: MessageBody, source: MessageSource)] = [
        (
            "not JSON, id found by the scan",
            .string(#"{"v":1,"kind":"call","id":"r1","task":"echo","options":{"a":}"#),
            .mainFrame(appOrigin)
        ),
        (
            "not JSON from a subframe", .string(#"{"v":1,"kind":"call","id":"r2","task":"echo","options":[}"#),
            .subframe(appOrigin)
        ),
        ("unknown task", .string(#"{"v":1,"kind":"call","id":"r3","task":"nope"}"#), .mainFrame(appOrigin)),
        (
            "forbidden origin", .string(#"{"v":1,"kind":"call","id":"r4","task":"echo"}"#),
            .mainFrame("https://evil.example")
        ),
        ("forbidden subframe", .string(#"{"v":1,"kind":"call","id":"r5","task":"echo"}"#), .subframe(appOrigin)),
        ("unsupported version", .string(#"{"v":99,"kind":"call","id":"r6","task":"echo"}"#), .mainFrame(appOrigin)),
    ]

    @Test(
        "a refused call's reply handler is answered, with its error, before receive returns",
        arguments: Self.refusals.indices)
    func refusalAnsweredSynchronously(_ index: Int) throws {
        let (name, body, source) = Self.refusals[index]
        let router = try makeRouter([echoTask])
        router.connect(PageChannel { _ in })
        let answers = Mutex<[String?]>([])
        // A pool made busy on purpose would make the old behaviour fail more often, but the
        // check below needs none: the answer must exist when `receive` returns.
        router.receive(body, from: source, replyHandler: ReplyHandler { json in answers.withLock { $0.append(json) } })
        let given = answers.withLock { $0 }
        #expect(given.count == 1, "\(name): answered \(given.count) times when receive returned")
        // A main-frame call the policy allows gets its reply by script (the handler answers
        // without data); a refused sender or a subframe gets the error through the handler.
        let byScript = source.isMainFrame && source.origin?.description == appOrigin
        if byScript {
            #expect(given == [nil], "\(name)")
        } else if let text = given.first ?? nil {
            let reply = try BridgeJSON.decode(JSONValue.self, from: Data(text.utf8))
            #expect(reply["kind"] == "reply", "\(name)")
            #expect(reply["ok"] == false, "\(name)")
        } else {
            Issue.record("\(name): a refusal must carry its error reply, got \(given)")
        }
    }

    @Test("a refused main-frame call without a reply handler gets its reply script, once")
    func refusalScriptPosted() async throws {
        let router = try makeRouter([echoTask])
        let scripts = Mutex<[String]>([])
        router.connect(PageChannel { script in scripts.withLock { $0.append(script) } })
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"s1","task":"nope"}"#), from: .mainFrame(appOrigin),
            replyHandler: nil)
        #expect(await eventually { scripts.withLock { !$0.isEmpty } })
        try await Task.sleep(for: .milliseconds(10))
        let posted = scripts.withLock { $0 }
        #expect(posted.count == 1)
        #expect(posted.first?.contains("unknown_task") == true)
    }
}
