import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// A task that waits until cancelled and records that it saw the cancellation.
private final class WaitingTask: BridgeTask, @unchecked Sendable {
    let name = "wait"
    let started = Mutex(0)
    let cancelled = Mutex(0)
    func run(_ options: NoOptions, context: CallContext) async throws -> String {
        started.withLock { $0 += 1 }
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
        cancelled.withLock { $0 += 1 }
        return "late"
    }
}

/// Kind of fault: replies reaching the wrong page, calls that hang across navigation, timeouts
/// and cancellation that leave work running.
@Suite("Router: page generations, cancellation, timeouts, progress")
struct RouterLifecycleTests {
    @Test("A navigation cancels pending calls; their replies never reach the new page")
    func navigation() async throws {
        let task = WaitingTask()
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("wait", id: "old")
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        page.navigate()
        #expect(await eventually { task.cancelled.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(30))
        #expect(page.messages(for: "old").isEmpty)
        #expect(log.all.contains { $0.id == "old" && $0.outcome == "navigated" })
        #expect(router.pageGeneration == 1)
    }

    @Test("A cancel from the page settles the call with cancelled and cancels the task")
    func cancel() async throws {
        let task = WaitingTask()
        let page = InMemoryPage(router: try makeRouter([task]))
        let id = try #require(page.send("wait"))
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        page.cancel(id, from: .subframe(appOrigin))
        try await Task.sleep(for: .milliseconds(20))
        #expect(task.cancelled.withLock { $0 } == 0, "a cancel from another frame is ignored")
        page.cancel(id)
        #expect(await page.reply(for: id)["error"]?.string("code") == "cancelled")
        #expect(await eventually { task.cancelled.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.messages(for: id).count == 1)
    }

    @Test("A task timeout settles with timeout once; the late result is dropped")
    func timeout() async throws {
        let task = WaitingTask()
        let page = InMemoryPage(router: try makeRouter([task], defaultTimeout: .milliseconds(30)))
        let reply = await page.call("wait", id: "slow")
        #expect(reply["error"]?.string("code") == "timeout")
        #expect(await eventually { task.cancelled.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.messages(for: "slow").count == 1)
    }

    @Test("R20 progress messages arrive in order before the single final reply")
    func r20() async throws {
        let download = ClosureTask(name: "download") { (_: NoOptions, context: CallContext) -> JSONValue in
            try await context.progress(["pct": 10])
            try await context.progress(["pct": 60])
            return ["pct": 100]
        }
        let page = InMemoryPage(router: try makeRouter([download]))
        _ = await page.call("download", id: "d")
        let kinds = page.messages(for: "d").map { "\($0.string("kind") ?? "")\($0["data"]?.int("pct") ?? -1)" }
        #expect(kinds == ["progress10", "progress60", "reply100"])
    }

    @Test("Progress beyond the limit settles the call with progress_limit_exceeded")
    func progressLimit() async throws {
        let chatty = ClosureTask(name: "chatty") { (_: NoOptions, context: CallContext) -> NoResult in
            for i in 0..<10 { try await context.progress(i) }
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([chatty], limits: BridgeLimits(maxProgressPerCall: 3)))
        let reply = await page.call("chatty", id: "c")
        #expect(reply["error"]?.string("code") == "progress_limit_exceeded")
        #expect(page.messages(for: "c").filter { $0["kind"] == "progress" }.count == 3)
    }

    @Test("R28 a 4 MB payload round-trips; one over the limit settles with payload_too_large")
    func r28() async throws {
        let image = String(repeating: "QUJD", count: 1_000_000)
        let page = InMemoryPage(router: try makeRouter([echoTask], limits: BridgeLimits(maxPayloadBytes: 5_000_000)))
        let reply = await page.call("echo", options: ["image": .string(image)])
        #expect(reply["data"]?.string("image") == image)
        let big = ClosureTask(name: "big") { (_: NoOptions, _: CallContext) in String(repeating: "x", count: 6_000_000)
        }
        try page.router.register(big)
        let tooBig = await page.call("big", id: "b")
        #expect(tooBig["error"]?.string("code") == "payload_too_large")
        #expect(page.scripts.allSatisfy { $0.utf8.count < 5_100_000 })
        let inbound = await page.call("echo", options: .string(String(repeating: "y", count: 5_000_001)), id: "in")
        #expect(inbound["error"]?.string("code") == "payload_too_large")
    }

    @Test("Nesting deeper than the limit is refused with nesting_too_deep")
    func depth() async throws {
        let page = InMemoryPage(router: try makeRouter([echoTask], limits: BridgeLimits(maxDepth: 8)))
        var nested: JSONValue = 1
        for _ in 0..<10 { nested = [nested] }
        #expect(await page.call("echo", options: nested)["error"]?.string("code") == "nesting_too_deep")
        var ok: JSONValue = 1
        for _ in 0..<6 { ok = [ok] }
        #expect(await page.call("echo", options: ok)["ok"] == true)
    }

    @Test("More pending calls than the limit are refused with too_many_pending_calls")
    func pendingLimit() async throws {
        let task = WaitingTask()
        let page = InMemoryPage(router: try makeRouter([task], limits: BridgeLimits(maxPendingCalls: 2)))
        page.send("wait", id: "1")
        page.send("wait", id: "2")
        #expect(await page.call("wait", id: "3")["error"]?.string("code") == "too_many_pending_calls")
        await page.router.close()
        #expect(await page.reply(for: "1")["error"]?.string("code") == "unavailable")
        #expect(await page.reply(for: "2")["error"]?.string("code") == "unavailable")
        // The refused call left no entry behind: close() had nothing more to settle for it.
        #expect(page.messages(for: "3").count == 1)
    }

    @Test("close() settles pending calls with unavailable and refuses later ones")
    func close() async throws {
        let task = WaitingTask()
        let page = InMemoryPage(router: try makeRouter([task]))
        page.send("wait", id: "p")
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        await page.router.close()
        #expect(await page.reply(for: "p")["error"]?.string("code") == "unavailable")
        page.send("wait", id: "after", replyHandler: true)
        #expect(await page.reply(for: "after")["error"]?.string("code") == "unavailable")
    }

    @Test("Non-finite numbers in a result give invalid_result, not a crash")
    func invalidResult() async throws {
        let nan = ClosureTask(name: "nan") { (_: NoOptions, _: CallContext) in Double.nan }
        let page = InMemoryPage(router: try makeRouter([nan]))
        #expect(await page.call("nan")["error"]?.string("code") == "invalid_result")
    }
}
