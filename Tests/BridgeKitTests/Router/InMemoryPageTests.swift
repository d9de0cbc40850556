import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// The test kit never hangs: refusals reach `call(...)`, calls have a time limit, typed calls.
@Suite struct InMemoryPageTests {
    struct Greeting: Codable, Sendable, Equatable {
        var name: String
        var count: Int
    }

    /// A task that never ends on its own (until cancelled).
    let neverEnds = ClosureTask(name: "never") { (_: JSONValue, _: CallContext) -> JSONValue in
        try await Task.sleep(for: .seconds(3600))
        return .null
    }

    @Test(.timeLimit(.minutes(1))) func refusedCallReturnsTheRefusalWithoutReplyHandler() async throws {
        let router = try makeRouter([echoTask], policy: .origins(["https://other.example"]))
        let page = InMemoryPage(router: router)
        let reply = await page.call("echo", options: ["a": 1], timeLimit: .seconds(30))
        #expect(reply["ok"] == false)
        #expect(reply["error"]?.string("code") == "forbidden")
        #expect(reply["id"] == "t-1")
    }

    @Test(.timeLimit(.minutes(1))) func refusedCallReturnsTheRefusalWithReplyHandler() async throws {
        let router = try makeRouter([echoTask], policy: .origins(["https://other.example"]))
        let page = InMemoryPage(router: router)
        let reply = await page.call("echo", options: ["a": 1], replyHandler: true, timeLimit: .seconds(30))
        #expect(reply["error"]?.string("code") == "forbidden")
    }

    @Test(.timeLimit(.minutes(1))) func allowedCallWithoutReplyHandlerStillGoesByScript() async throws {
        let router = try makeRouter([echoTask])
        let page = InMemoryPage(router: router)
        let reply = await page.call("echo", options: ["a": 1])
        #expect(reply["data"] == ["a": 1])
        #expect(page.deliveries.map(\.path) == [.script])
    }

    @Test(.timeLimit(.minutes(1))) func timeLimitFiresForATaskThatNeverEnds() async throws {
        let router = try makeRouter([neverEnds])
        let page = InMemoryPage(router: router)
        let started = ContinuousClock.now
        let reply = await page.call("never", id: "slow-1", timeLimit: .milliseconds(200))
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(reply["ok"] == false)
        #expect(reply["id"] == "slow-1")
        let error = try #require(reply["error"])
        #expect(error.string("code") == InMemoryPage.timeLimitErrorCode)
        let message = try #require(error.string("message"))
        #expect(message.contains("never"))
        #expect(message.contains("slow-1"))
        #expect(message.contains("https://app.example"))
        // The page cancels the call it gave up on, as the shim does on its own timeout.
        let cancelled = await page.reply(for: "slow-1", timeLimit: .seconds(30))
        #expect(cancelled["error"]?.string("code") == "cancelled")
    }

    @Test(.timeLimit(.minutes(1))) func timeLimitNamesThePageOriginAndTheDefault() async throws {
        let router = try makeRouter([echoTask], policy: .origins(["https://elsewhere.example"], allowsSubframes: true))
        let page = InMemoryPage(router: router, origin: "https://elsewhere.example")
        // A subframe call without a reply handler gets no answer from a real engine.
        let reply = await page.call("echo", from: .subframe("https://elsewhere.example"), timeLimit: .milliseconds(100))
        #expect(reply["error"]?.string("code") == InMemoryPage.timeLimitErrorCode)
        let message = try #require(reply["error"]?.string("message"))
        #expect(message.contains("https://elsewhere.example"))
        #expect(message.contains("default origin is https://app.example"))
    }

    @Test func defaultTimeLimitIsTenSeconds() {
        #expect(InMemoryPage.defaultTimeLimit == .seconds(10))
    }

    @Test(.timeLimit(.minutes(1))) func typedCallDecodesTheResult() async throws {
        let router = try makeRouter([echoTask])
        let page = InMemoryPage(router: router)
        let greeting = try await page.call("echo", options: Greeting(name: "Ada", count: 2), as: Greeting.self)
        #expect(greeting == Greeting(name: "Ada", count: 2))
    }

    @Test(.timeLimit(.minutes(1))) func typedCallThrowsTheReplyError() async throws {
        let router = try makeRouter([echoTask])
        let page = InMemoryPage(router: router)
        do {
            _ = try await page.call("missing", options: Greeting(name: "Ada", count: 1), as: Greeting.self)
            Issue.record("expected unknown_task")
        } catch let error as BridgeError {
            #expect(error.code == "unknown_task")
        }
        let refusing = InMemoryPage(router: try makeRouter([echoTask], policy: .origins(["https://other.example"])))
        await #expect(throws: BridgeError.self) {
            _ = try await refusing.call("echo", as: JSONValue.self)
        }
    }

    @Test func accessorsAnswerOnlyTheirOwnKind() {
        let string: JSONValue = "Ada"
        #expect(string.stringValue == "Ada")
        #expect(string.intValue == nil)
        #expect(string.string("name") == nil)
        #expect(JSONValue.int(3).intValue == 3)
        #expect(JSONValue.double(3).intValue == 3)
        #expect(JSONValue.double(3.5).intValue == nil)
        #expect(JSONValue.int(3).doubleValue == 3)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.int(0).boolValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
        #expect(JSONValue.array([1, "x"]).arrayValue == [1, "x"])
        #expect(JSONValue.object(["a": 1]).objectValue == ["a": 1])
        #expect(JSONValue.null.objectValue == nil)
        #expect(JSONValue.string("1").intValue == nil)
    }

    @Test func descriptionIsCompactJSON() throws {
        let value: JSONValue = ["name": "A\"d\na", "tags": ["x", 1, 2.5, true, nil], "empty": [:]]
        #expect(value.description == #"{"empty":{},"name":"A\"d\na","tags":["x",1,2.5,true,null]}"#)
        #expect("\(JSONValue.string("Ada"))" == #""Ada""#)
        #expect(JSONValue.double(2).description == "2")
        #expect(JSONValue.string("\u{01}").description == #""\u0001""#)
        // It round-trips through the JSON decoder.
        let decoded = try BridgeJSON.decode(JSONValue.self, from: Data(value.description.utf8))
        #expect(decoded == value)
    }

    @Test(
        "a reply with an escaped lone surrogate (which the page's JSON.parse reads) reaches the waiting call at once",
        .timeLimit(.minutes(1)),
        arguments: [false, true])
    func loneSurrogateReply(replyHandler: Bool) async throws {
        let rawEcho = ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in options }
        let page = InMemoryPage(router: try makeRouter([rawEcho]))
        page.post(
            body: .string(#"{"v":1,"kind":"call","id":"s","task":"raw","options":["\ud800x","\udc00","\\ud800"]}"#),
            replyHandler: replyHandler)
        // Before, the reply was dropped and this ran into its time limit (a failed reply).
        let reply = await page.reply(for: "s", timeLimit: .seconds(30))
        #expect(reply["ok"] == true)
        #expect(reply["data"] == ["\u{FFFD}x", "\u{FFFD}", "\\ud800"])
    }

    @Test(
        "navigate() ends the old document's calls navigated, as the shim does: reply(for:) returns it at once, also when it was waiting; later calls are not touched",
        .timeLimit(.minutes(1)))
    func navigateEndsTheOldDocumentsCalls() async throws {
        let router = try makeRouter([neverEnds, echoTask])
        let page = InMemoryPage(router: router)
        let before = try #require(page.send("never"))
        async let waiting = page.reply(for: before, timeLimit: .seconds(30))
        let done = await page.call("echo", options: 1)
        #expect(done["ok"] == true)
        page.navigate()
        let ended = await waiting
        #expect(ended["error"]?.string("code") == InMemoryPage.navigatedErrorCode)
        #expect(await page.reply(for: before, timeLimit: .seconds(30)) == ended)
        #expect(page.messages(for: before).isEmpty, "nothing was delivered to the replaced document")
        let after = try #require(page.send("never"))
        let late = await page.reply(for: after, timeLimit: .milliseconds(100))
        #expect(late["error"]?.string("code") == InMemoryPage.timeLimitErrorCode)
    }

    @Test(
        "a call that got progress and then ran out of time is reported as unfinished, not as refused for its origin",
        .timeLimit(.minutes(1)))
    func timeLimitAfterProgress() async throws {
        let task = ClosureTask(name: "stalls") { (_: NoOptions, context: CallContext) -> Int in
            try await context.progress(1)
            try await Task.sleep(for: .seconds(3600))
            return 0
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("stalls", id: "p-1", timeLimit: .milliseconds(300))
        let message = try #require(reply["error"]?.string("message"))
        #expect(message.contains("got progress but no final reply"), "\(message)")
        #expect(!message.contains("origin"), "\(message)")
    }
}
