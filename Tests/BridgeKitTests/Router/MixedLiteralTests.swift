import BridgeKit
import BridgeKitTesting
import Testing

/// A new user's trial: `router.emit("greeting", data: ["from": "native", "n": 1])` did not
/// compile (`conflicting arguments to generic parameter 'Value'`): a dictionary literal of mixed
/// types has no Encodable type to infer. emit, progress and callPage take such a literal as a
/// ``JSONValue``; same-type literals and typed values keep working.
@Suite("Mixed-type literals in emit, progress and callPage")
struct MixedLiteralTests {
    @Test("each takes a literal of mixed types and the page gets it as written")
    func mixedLiterals() async throws {
        let task = ClosureTask(name: "steps") { (_: NoOptions, context: CallContext) -> Int in
            try await context.progress(["step": 1, "of": 2, "file": "a.txt", "done": false])
            try await context.progress(["step": 2])  // one type: still fine
            return 2
        }
        let router = try makeRouter([task])
        let page = InMemoryPage(router: router)
        let reply = await page.call("steps", id: "p-1")
        #expect(reply["data"] == 2)
        let progress = page.messages(for: "p-1").filter { $0["kind"] == "progress" }.map { $0["data"] }
        #expect(progress == [["step": 1, "of": 2, "file": "a.txt", "done": false], ["step": 2]])

        try await router.emit("greeting", data: ["from": "native", "n": 1, "tags": ["a", 2]])
        #expect(page.messages.last?["data"] == ["from": "native", "n": 1, "tags": ["a", 2]])
        try await router.emit("count", data: ["count": 3])
        #expect(page.messages.last?["data"] == ["count": 3])

        let call = Task { try await router.callPage("save", options: ["item": 1, "note": "x"], timeout: nil) }
        #expect(await eventually { page.messages.last?["kind"] == "call" })
        let sent = try #require(page.messages.last)
        #expect(sent["options"] == ["item": 1, "note": "x"])
        page.answer(sent.string("id") ?? "", data: "saved")
        #expect(try await call.value == "saved")
        await router.close()
    }
}
