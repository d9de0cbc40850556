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

    @Test("Replies from subframes or to unknown ids are dropped")
    func strayReplies() async throws {
        let router = try makeRouter()
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.post(["v": 1, "kind": "reply", "id": "n-99", "ok": true, "data": 1])
        #expect(log.all.contains { $0.id == "n-99" && $0.outcome == "dropped" })
    }
}
