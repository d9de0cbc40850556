import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a page (or a task) that makes the native side hold unbounded memory or work,
/// R28 generalised to every limit. Each ``BridgeLimits`` member is checked at its boundary (the
/// limit itself is allowed, one more is refused), with its own error code and the limit in the
/// error's details, and the router must recover once the pressure is gone.
@Suite("Reliability: every resource limit holds at its boundary, with its own code")
struct LimitTests {
    @Test("maxPayloadBytes counts UTF-8 bytes of the body: the limit passes, one byte more is payload_too_large")
    func inboundPayloadBoundary() async throws {
        let router = try makeRouter([echoTask], limits: BridgeLimits(maxPayloadBytes: 300))
        let page = InMemoryPage(router: router)
        func body(_ filler: String, id: String) -> String {
            jsonText(["v": 1, "kind": "call", "id": .string(id), "task": "echo", "options": .string(filler)])
        }
        let remaining = 300 - body("", id: "p").utf8.count
        // é: 2 bytes.
        let filler = String(repeating: "é", count: remaining / 2) + String(repeating: "a", count: remaining % 2)
        let exact = body(filler, id: "p")
        let over = body(filler + "x", id: "q")
        try #require(exact.utf8.count == 300 && over.utf8.count == 301)
        page.post(body: .string(exact))
        page.post(body: .json(Data(over.utf8)))
        #expect(await page.reply(for: "p")["ok"] == true)
        let refused = await page.reply(for: "q")
        #expect(refused["error"]?.string("code") == "payload_too_large")
        #expect(refused["error"]?["details"]?.int("limit") == 300)
        #expect(refused["error"]?["details"]?.int("bytes") == Int64(over.utf8.count))
    }

    @Test("maxDepth counts the envelope as one level; brackets inside strings do not count")
    func depthBoundary() async throws {
        let page = InMemoryPage(router: try makeRouter([echoTask], limits: BridgeLimits(maxDepth: 8)))
        func nested(_ levels: Int) -> JSONValue {
            var value: JSONValue = 1
            for _ in 0..<levels { value = [value] }
            return value
        }
        #expect(await page.call("echo", options: nested(7))["ok"] == true, "1 + 7 = 8 levels is the limit")
        let deep = await page.call("echo", options: nested(8))
        #expect(deep["error"]?.string("code") == "nesting_too_deep" && deep["error"]?["details"]?.int("limit") == 8)
        let text = String(repeating: "[{", count: 50)
        #expect(await page.call("echo", options: .string(text))["data"] == .string(text))
    }

    @Test("maxPendingCalls: the limit is admitted, one more is refused, and a settled call frees its slot")
    func pendingCallsBoundary() async throws {
        let gates = Gates()
        let wait = ClosureTask(name: "wait") { (_: NoOptions, context: CallContext) -> String in
            await gates.wait(context.callID ?? "")
            return "done"
        }
        let router = try makeRouter([wait], limits: BridgeLimits(maxPendingCalls: 3))
        let page = InMemoryPage(router: router)
        for id in ["1", "2", "3"] { page.send("wait", id: id) }
        let refused = await page.call("wait", id: "4")
        #expect(refused["error"]?.string("code") == "too_many_pending_calls")
        #expect(refused["error"]?["details"]?.int("limit") == 3)
        #expect(router.pendingCountsForTesting.calls == 3)
        gates.release("1")
        #expect(await page.reply(for: "1")["data"] == "done")
        page.send("wait", id: "5")
        #expect(await settle { gates.waitingCount == 3 }, "the freed slot is used again")
        for id in ["2", "3", "5"] { gates.release(id) }
        for id in ["2", "3", "5"] { #expect(await page.reply(for: id)["ok"] == true) }
        #expect(router.pendingCountsForTesting == (0, 0))
    }

    @Test("maxProgressPerCall: exactly the limit passes; one more settles the call with progress_limit_exceeded")
    func progressBoundary() async throws {
        let sent = Mutex<[Int: String]>([:])
        let task = ClosureTask(name: "steps") { (count: Int, context: CallContext) -> Int in
            do {
                for step in 0..<count { try await context.progress(step) }
            } catch {
                sent.withLock { $0[count] = (error as? BridgeError)?.code ?? "\(error)" }
                throw error
            }
            return count
        }
        let page = InMemoryPage(router: try makeRouter([task], limits: BridgeLimits(maxProgressPerCall: 4)))
        #expect(await page.call("steps", options: 4, id: "ok")["data"] == 4)
        let over = await page.call("steps", options: 5, id: "over")
        #expect(
            over["error"]?.string("code") == "progress_limit_exceeded" && over["error"]?["details"]?.int("limit") == 4)
        #expect(page.messages(for: "over").filter { $0["kind"] == "progress" }.count == 4)
        // The limit settles the call at once; the task learns why its progress failed as its
        // `progress` throws, which may come after the page has the reply.
        #expect(
            await settle { sent.withLock { $0[5] } == "progress_limit_exceeded" },
            "the task learns why its progress failed")
    }

    @Test(
        "maxUnansweredPageCalls: native-to-page calls beyond the limit throw too_many_pending_calls; an answer frees a slot"
    )
    func pendingPageCallsBoundary() async throws {
        let page = InMemoryPage(router: try makeRouter(limits: BridgeLimits(maxUnansweredPageCalls: 2)))
        let router = page.router
        let first = Task { try await router.callPage("pick", timeout: nil) }
        let second = Task { try await router.callPage("pick", timeout: nil) }
        #expect(await settle { router.pendingCountsForTesting.pageCalls == 2 })
        await #expect { _ = try await router.callPage("pick", timeout: nil) } throws: { error in
            let bridgeError = error as? BridgeError
            return bridgeError?.code == "too_many_pending_calls" && bridgeError?.details?.int("limit") == 2
        }
        #expect(await settle { page.messages.filter { $0["kind"] == "call" }.count == 2 })
        let ids = page.messages.filter { $0["kind"] == "call" }.compactMap { $0.string("id") }
        try #require(ids.count == 2)
        page.answer(ids[0], data: "a")
        page.answer(ids[1], data: "b")
        let answers = [try await first.value, try await second.value]
        #expect(Set(answers) == ["a", "b"])
        let third = Task { try await router.callPage("pick", timeout: nil) }
        #expect(await settle { page.messages.filter { $0["kind"] == "call" }.count == 3 })
        page.answer(try #require(page.messages.last { $0["kind"] == "call" }?.string("id")), data: "c")
        #expect(try await third.value == "c")
        #expect(router.pendingCountsForTesting == (0, 0))
    }

    @Test("maxPayloadBytes also bounds what native sends: events, native-to-page calls and progress")
    func outboundPayload() async throws {
        let progressError = Mutex<String?>(nil)
        let big = String(repeating: "x", count: 2000)
        let task = ClosureTask(name: "loud") { (_: NoOptions, context: CallContext) -> String in
            do {
                try await context.progress(big)
            } catch {
                progressError.withLock { $0 = (error as? BridgeError)?.code }
            }
            return "finished"
        }
        let page = InMemoryPage(router: try makeRouter([task], limits: BridgeLimits(maxPayloadBytes: 1000)))
        await #expect { try await page.router.emit("huge", data: big) } throws: {
            ($0 as? BridgeError)?.code == "payload_too_large"
        }
        await #expect { _ = try await page.router.callPage("huge", options: big, timeout: nil) } throws: {
            ($0 as? BridgeError)?.code == "payload_too_large"
        }
        #expect(await page.call("loud", id: "l")["data"] == "finished")
        #expect(progressError.withLock { $0 } == "payload_too_large")
        #expect(page.scripts.allSatisfy { $0.utf8.count < 1100 })
        #expect(page.router.pendingCountsForTesting == (0, 0))
    }

    @Test("Every limit has its own stable error code")
    func distinctCodes() {
        let codes = [
            BridgeError.payloadTooLarge(bytes: 2, limit: 1).code, BridgeError.nestingTooDeep(limit: 1).code,
            BridgeError.tooManyPendingCalls(limit: 1).code, BridgeError.progressLimitExceeded(limit: 1).code,
        ]
        #expect(
            codes == ["payload_too_large", "nesting_too_deep", "too_many_pending_calls", "progress_limit_exceeded"])
        #expect(Set(codes).isSubset(of: Set(BridgeError.builtInCodes)))
    }
}
