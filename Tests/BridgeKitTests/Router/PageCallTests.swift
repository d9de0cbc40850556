import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Kind of fault: native-to-page calls that hang, and events that are lost.
@Suite("Native to page: events and calls with replies")
struct PageCallTests {
    @Test("An event reaches the page as an event message")
    func event() async throws {
        let page = InMemoryPage(router: try makeRouter())
        try await page.router.emit("cart.updated", data: ["count": 3])
        #expect(page.messages.last == ["v": 1, "kind": "event", "name": "cart.updated", "data": ["count": 3]])
    }

    @Test("A native-to-page call returns the page's answer, decoded")
    func callAnswered() async throws {
        let page = InMemoryPage(router: try makeRouter())
        async let answer = page.router.callPage("getSelection", options: ["max": 2], as: [String].self)
        #expect(await eventually { page.messages.contains { $0["kind"] == "call" } })
        let call = try #require(page.messages.last { $0["kind"] == "call" })
        #expect(call["task"] == "getSelection" && call["options"] == ["max": 2])
        page.answer(try #require(call.string("id")), data: ["a", "b"])
        #expect(try await answer == ["a", "b"])
    }

    @Test("A native-to-page call fails with the page's error, timeout, or navigated")
    func callFailures() async throws {
        let page = InMemoryPage(router: try makeRouter())
        let failed = Task { try await page.router.callPage("missing") }
        #expect(await eventually { page.messages.contains { $0["kind"] == "call" } })
        page.fail(try #require(page.messages.last?.string("id")), code: "unknown_task")
        await #expect(throws: BridgeError.self) { _ = try await failed.value }
        await #expect { _ = try await page.router.callPage("slow", timeout: .milliseconds(20)) } throws: {
            ($0 as? BridgeError)?.code == "timeout"
        }
        #expect(await eventually { page.messages.contains { $0["kind"] == "cancel" } })
        let navigated = Task { try await page.router.callPage("x", timeout: nil) }
        #expect(await eventually { page.messages.filter { $0["kind"] == "call" }.count == 3 })
        page.navigate()
        await #expect { _ = try await navigated.value } throws: { ($0 as? BridgeError)?.code == "navigated" }
    }

    /// Kind of fault: an answer native cannot read became a successful `null`, and the page's
    /// data was lost without an error (found in WebKitGTK: a handler whose string was cut in the
    /// middle of an emoji, which `JSON.stringify` writes as a lone `\ud83d`).
    @Test(
        "A page's answer native cannot read fails the call with invalid_result, not a successful null",
        arguments: [
            #"{"title":"Hello \ud83d","approved":true}"#, #"{"amount":1e999}"#, "null",
        ])
    func unreadableAnswer(_ data: String) async throws {
        let page = InMemoryPage(router: try makeRouter())
        let answer = Task { try await page.router.callPage("confirm") }
        #expect(await eventually { page.messages.contains { $0["kind"] == "call" } })
        let id = try #require(page.messages.last { $0["kind"] == "call" }?.string("id"))
        page.post(body: .string(#"{"v":1,"kind":"reply","id":"\#(id)","ok":true,"data":\#(data)}"#))
        if data == "null" {
            #expect(try await answer.value == .null, "null is an answer native reads")
            return
        }
        await #expect {
            _ = try await answer.value
        } throws: {
            ($0 as? BridgeError)?.code == "invalid_result"
        }
    }

    /// Kind of fault: Swift's debug text in an error a task may pass on to the page (a page's
    /// answer that did not decode read "typeMismatch(Swift.String, Swift.DecodingError.Context(…
    /// debugDescription: \"Expected to decode String but found a dictionary instead.\"…)", and
    /// named the app's type), found by a front-end developer's trial. Errors pages can see say
    /// where and what, in the words of the options errors.
    @Test("An answer that does not decode says where and what, without Swift's debug text or the app's type names")
    func answerOfTheWrongShape() async throws {
        struct Profile: Decodable, Sendable {
            let name: String
            let tags: [String]
        }
        let page = InMemoryPage(router: try makeRouter())
        let answer = Task { try await page.router.callPage("profile", as: Profile.self) }
        #expect(await eventually { page.messages.contains { $0["kind"] == "call" } })
        page.answer(
            try #require(page.messages.last { $0["kind"] == "call" }?.string("id")), data: ["name": "a", "tags": [1]])
        do {
            _ = try await answer.value
            Issue.record("the answer decoded")
        } catch let error as BridgeError {
            #expect(error.code == "invalid_result")
            #expect(error.message == "Invalid answer at tags[0]: expected a string.", "\(error.message)")
            for leak in ["Profile", "DecodingError", "Context", "debugDescription", "CodingKeys"] {
                #expect(!error.message.contains(leak), "\(leak) in \(error.message)")
            }
        }
    }

    @Test("Replies from subframes or to unknown ids are dropped")
    func strayReplies() async throws {
        let router = try makeRouter()
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.post(["v": 1, "kind": "reply", "id": "n-99", "ok": true, "data": 1])
        #expect(log.all.contains { $0.id == "n-99" && $0.outcome == "dropped" })
    }
}
