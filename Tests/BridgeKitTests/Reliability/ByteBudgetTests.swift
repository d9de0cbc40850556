import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: memory bounded only by count × maximum size. A page that parks large calls
/// behind slow work (pending calls, queued fire-and-forget calls) must not make the app hold more
/// than one byte budget for it (issue 20, item 3).
@Suite("Limits: the byte budget of a page")
struct ByteBudgetTests {
    /// A task that holds its options until the test opens the gate.
    private final class HoldTask: BridgeTask, @unchecked Sendable {
        let name = "hold"
        let running = Mutex(0)
        let open = Atomic<Bool>(false)
        func run(_ options: JSONValue, context: CallContext) async throws -> Int {
            running.withLock { $0 += 1 }
            while !open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            if case .array(let items) = options { return items.count }
            return 0
        }
    }

    /// Options of about `bytes` bytes of JSON.
    private static func payload(_ bytes: Int) -> JSONValue {
        .string(String(repeating: "x", count: bytes))
    }

    @Test(
        "Calls past the budget are refused with memory_budget_exceeded; the budget is free again once the held calls end"
    )
    func pendingCalls() async throws {
        let task = HoldTask()
        let limits = BridgeLimits(maxHeldBytes: 350_000)
        let router = try makeRouter([task], limits: limits)
        let page = InMemoryPage(router: router)
        let held = (0..<3).compactMap { _ in page.send("hold", options: Self.payload(100_000)) }
        #expect(await eventually { task.running.withLock { $0 } == 3 })
        #expect(router.heldBytes > 300_000 && router.heldBytes <= 350_000)
        let refused = await page.call("hold", options: Self.payload(100_000))
        #expect(refused["ok"] == false)
        #expect(refused["error"]?.string("code") == "memory_budget_exceeded")
        #expect(refused["error"]?["details"]?["limit"] == 350_000)
        #expect(router.peakHeldBytes <= 350_000, "never more than the budget")
        // A small call still fits beside them.
        let small = try #require(page.send("hold", options: [1, 2]))
        task.open.store(true, ordering: .releasing)
        for id in held + [small] {
            #expect(await page.reply(for: id)["ok"] == true)
        }
        #expect(await eventually { router.heldBytes == 0 }, "every charge released")
        let again = await page.call("hold", options: Self.payload(100_000))
        #expect(again["ok"] == true)
    }

    @Test(
        "Subframes' calls together hold at most half of the budget: the main frame's call still fits beside them (attack 25, F4b)",
        arguments: [false, true])
    func subframeShare(fireAndForget: Bool) async throws {
        let task = HoldTask()
        let router = try makeRouter(
            [task], limits: BridgeLimits(maxHeldBytes: 1_000_000),
            policy: .origins([OriginPattern(appOrigin)], allowsSubframes: true))
        let page = InMemoryPage(router: router)
        // Four subframe calls of 150 KB: the fourth would take the subframes past 500 KB.
        for index in 0..<4 {
            _ = page.send(
                "hold", options: Self.payload(150_000), id: "s\(index)", fireAndForget: fireAndForget,
                from: .subframe(appOrigin), replyHandler: true)
        }
        // Fire-and-forget calls run one at a time: the first runs, the others wait in the queue.
        #expect(await eventually { task.running.withLock { $0 } == (fireAndForget ? 1 : 3) })
        if !fireAndForget {
            #expect(await page.reply(for: "s3")["error"]?.string("code") == "memory_budget_exceeded")
        }
        #expect(router.heldBytes > 450_000 && router.heldBytes <= 500_000, "\(router.heldBytes)")
        // The main frame has the other half: its 450 KB call is held beside them.
        let main = try #require(page.send("hold", options: Self.payload(450_000)))
        #expect(await eventually { router.heldBytes > 900_000 }, "\(router.heldBytes)")
        task.open.store(true, ordering: .releasing)
        #expect(await page.reply(for: main)["ok"] == true)
        #expect(await eventually { router.heldBytes == 0 }, "every charge released, subframes' too")
        // The subframes' half is free again.
        let again = await page.call(
            "hold", options: Self.payload(400_000), from: .subframe(appOrigin), replyHandler: true)
        #expect(again["ok"] == true)
    }

    @Test("Fire-and-forget calls queued behind a slow one are dropped past the budget, with a log record")
    func fireAndForget() async throws {
        let task = HoldTask()
        let router = try makeRouter([task], limits: BridgeLimits(maxHeldBytes: 250_000))
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for _ in 0..<10 { page.send("hold", options: Self.payload(100_000), fireAndForget: true) }
        #expect(router.heldBytes <= 250_000)
        #expect(router.peakHeldBytes <= 250_000)
        let dropped = log.all.filter { $0.outcome == "memory_budget_exceeded" && $0.task == "hold" }
        #expect(dropped.count == 8, "two fit, eight are dropped")
        task.open.store(true, ordering: .releasing)
        #expect(await eventually { router.heldBytes == 0 })
        #expect(await eventually { task.running.withLock { $0 } == 2 })
    }

    @Test("A navigation or close releases what the old page's calls held once their work ends")
    func navigationReleases() async throws {
        let task = HoldTask()
        let router = try makeRouter([task], limits: BridgeLimits(maxHeldBytes: 1_000_000))
        let page = InMemoryPage(router: router)
        for _ in 0..<3 { page.send("hold", options: Self.payload(100_000)) }
        page.send("hold", options: Self.payload(100_000), fireAndForget: true)
        #expect(await eventually { task.running.withLock { $0 } == 4 })
        page.navigate()
        task.open.store(true, ordering: .releasing)
        #expect(await eventually { router.heldBytes == 0 })
        await router.close()
    }

    @Test("A body the host refused to copy is answered payload_too_large for the id in its head")
    func oversizedBody() async throws {
        let router = try makeRouter([echoTask])
        let replies = Mutex<[String?]>([])
        let head = #"{"v":1,"kind":"call","id":"big-1","task":"echo","options":"xxxxxxxx"#
        router.receiveHead(
            head, byteCount: 300_000_000, reason: .overLimit, from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { replies.withLock { !$0.isEmpty } })
        let json = try #require(replies.withLock { $0.first } ?? nil)
        let reply = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(reply["id"] == "big-1")
        #expect(reply["error"]?.string("code") == "payload_too_large")
        #expect(reply["error"]?["details"]?["bytes"] == 300_000_000)
        #expect(router.heldBytes == 0)
    }
}
