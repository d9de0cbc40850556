import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Bytes a task hands to the page after its call settled follow the rule of progress: refused
/// with `cancelled` (the call has already settled), recorded in the traffic log, never offered
/// (no token announced, no bytes held).
@Suite("Binary values: sent after the call settled")
struct BinaryLateSendTests {
    /// A task that answers at once and keeps running after its reply (an unstructured task the
    /// router's cancel does not reach), then sends bytes for the page.
    final class Late: Sendable {
        let outcome = Mutex<String?>(nil)
        let go = Mutex(false)

        func task(_ transfers: BinaryTransfers, name: String = "Late", waits: Bool = false) -> some BridgeTask {
            ClosureTask(name: name) { (count: Int, context: CallContext) -> String in
                let work = Task.detached {
                    while !self.go.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
                    do {
                        let binary = try await transfers.send(Data(repeating: 1, count: count), context: context)
                        try await context.progress(["file": binary])
                        self.outcome.withLock { $0 = "sent" }
                    } catch let error as BridgeError {
                        self.outcome.withLock { $0 = error.code }
                    } catch {
                        self.outcome.withLock { $0 = "other" }
                    }
                }
                if waits { await work.value }
                return "answered"
            }
        }

        var ended: Bool { outcome.withLock { $0 != nil } }
    }

    @Test(
        "after the reply: send throws cancelled, nothing is announced or held, the traffic log has the refusal",
        .timeLimit(.minutes(1)))
    func afterReply() async throws {
        let late = Late()
        let (page, transfers, _, records) = try BinaryTransfersTests.fixture()
        try page.router.register(late.task(transfers))
        // Registering while a page is connected sends it the new task list on a task of its own:
        // wait for it, so it is not counted below as a message after the reply.
        #expect(await eventually { page.messages.contains { $0["kind"] == "tasks" } })
        let log = TrafficLog(page.router)
        let reply = await page.call("Late", options: 1000, id: "late-1")
        #expect(reply["data"] == "answered")
        let before = page.messages.count
        late.go.withLock { $0 = true }
        #expect(await eventually { late.ended })
        #expect(late.outcome.withLock { $0 } == "cancelled")
        #expect(page.messages.count == before, "no announcement, no progress after the reply")
        #expect(transfers.heldBytes == 0)
        #expect(transfers.openTransfers == 0)
        #expect(records.list.isEmpty, "no transfer was ever offered")
        let refusals = log.all.filter { $0.id == "late-1" && $0.kind == .progress }
        #expect(refusals.count == 1)
        #expect(refusals.first?.outcome == "cancelled")
        #expect(refusals.first?.task == "Late")
    }

    @Test(
        "after the page cancelled the call: send throws cancelled and holds nothing, as progress would",
        .timeLimit(.minutes(1)))
    func afterCancel() async throws {
        let late = Late()
        let (page, transfers, _, _) = try BinaryTransfersTests.fixture()
        try page.router.register(late.task(transfers, name: "Slow", waits: true))
        let id = try #require(page.send("Slow", options: 1000))
        page.cancel(id)
        #expect(await eventually { page.messages(for: id).count == 1 })
        late.go.withLock { $0 = true }
        #expect(await eventually { late.ended })
        #expect(late.outcome.withLock { $0 } == "cancelled")
        #expect(transfers.heldBytes == 0)
        #expect(transfers.openTransfers == 0)
    }

    @Test("while the call runs, bytes in progress still reach the page", .timeLimit(.minutes(1)))
    func whileRunning() async throws {
        let late = Late()
        let (page, transfers, _, _) = try BinaryTransfersTests.fixture()
        try page.router.register(late.task(transfers, name: "During", waits: true))
        late.go.withLock { $0 = true }
        let reply = await page.call("During", options: 10)
        #expect(reply["data"] == "answered")
        #expect(late.outcome.withLock { $0 } == "sent")
        #expect(transfers.heldBytes == 10)
    }
}
