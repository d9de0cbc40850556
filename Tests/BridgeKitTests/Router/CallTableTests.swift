import BridgeKitTesting
import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: bookkeeping grows without bound, or its clean-up drops what is still live. A
/// call's entry leaves the call table when the event that settles it is applied
/// (``CallStateMachine``), or on navigation and close. The table must hold exactly the calls in
/// flight, and removing settled ones must never lose a pending call (its cancel, its reply).
@Suite("Call table: settled entries leave it, pending ones never do")
struct CallTableTests {
    @Test("thousands of settled calls leave a bounded table", arguments: [TaskExecution.concurrent, .immediate])
    func boundedTable(execution: TaskExecution) async throws {
        let echo = ClosureTask(name: "echo", execution: execution) { (value: Int, _: CallContext) in value }
        let router = try makeRouter([echo])
        let page = InMemoryPage(router: router)
        for index in 0..<2_000 {
            #expect(await page.call("echo", options: .int(Int64(index)), id: "c\(index)")["data"] == .int(Int64(index)))
        }
        #expect(router.pendingCountsForTesting.calls == 0)
        #expect(router.callTableCountForTesting <= 2 * 64)  // the bound of the earlier lazy sweep
        #expect(router.callTableCountForTesting == 0)
    }

    @Test("pending calls survive many settled ones: their cancel and their reply still reach them")
    func sweepKeepsPending() async throws {
        let gates = Gates()
        let wait = ClosureTask(name: "wait") { (_: NoOptions, context: CallContext) -> String in
            await gates.wait(context.callID ?? "")
            return Task.isCancelled ? "cancelled" : "done"
        }
        let echo = ClosureTask(name: "echo") { (value: Int, _: CallContext) in value }
        let router = try makeRouter([wait, echo])
        let page = InMemoryPage(router: router)
        for id in ["w1", "w2"] { page.send("wait", id: id) }
        #expect(await settle { gates.waitingCount == 2 })
        for index in 0..<256 {
            #expect(await page.call("echo", options: .int(Int64(index)))["ok"] == true)
        }
        #expect(router.pendingCountsForTesting.calls == 2)
        // A duplicate of a pending id is still refused after them (its refusal carries the id).
        #expect(await page.call("wait", id: "w2")["error"]?.string("code") == "invalid_message")
        page.cancel("w1")
        #expect(await page.reply(for: "w1")["error"]?.string("code") == "cancelled")
        gates.release("w2")
        #expect(await settle { page.messages(for: "w2").count == 2 })
        #expect(page.messages(for: "w2").last?["data"] == "done")
        gates.release("w1")
        #expect(await settle { router.pendingCountsForTesting.calls == 0 })
        #expect(page.messages(for: "w1").count == 1)
    }

    @Test("the pending-call limit counts pending calls, not settled ones")
    func limitCountsPendingOnly() async throws {
        let echo = ClosureTask(name: "echo") { (value: Int, _: CallContext) in value }
        let router = try makeRouter([echo], limits: BridgeLimits(maxPendingCalls: 4))
        let page = InMemoryPage(router: router)
        for index in 0..<50 {
            #expect(await page.call("echo", options: .int(Int64(index)))["ok"] == true, "call \(index)")
        }
        #expect(router.callTableCountForTesting <= 5)
    }
}
