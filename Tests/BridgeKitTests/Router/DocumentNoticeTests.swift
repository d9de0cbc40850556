import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a page generation that changes without a new document: when a navigation only
/// *starts* (it may never commit), or when a page posts something that looks like a notice. The
/// generation follows the host's commit reports only.
@Suite("Router: page generations follow committed documents")
struct DocumentNoticeTests {
    /// A task that waits until the test releases it or cancels it.
    private final class GateTask: BridgeTask, @unchecked Sendable {
        let name = "gate"
        let started = Mutex(0)
        let cancelled = Mutex(0)
        let open = Atomic<Bool>(false)
        func run(_ options: NoOptions, context: CallContext) async throws -> String {
            started.withLock { $0 += 1 }
            while !open.load(ordering: .acquiring) {
                if Task.isCancelled {
                    cancelled.withLock { $0 += 1 }
                    throw CancellationError()
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return "done"
        }
    }

    private static let notice: JSONValue = ["v": 1, "kind": "document"]

    @Test(
        "Only the host's commit report starts a new generation: the old document's calls settle navigated, undelivered")
    func commitReport() async throws {
        let task = GateTask()
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("gate", id: "old")
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        router.pageDidCommitNavigation()
        #expect(router.pageGeneration == 1)
        #expect(await eventually { task.cancelled.withLock { $0 } == 1 })
        #expect(log.all.contains { $0.id == "old" && $0.outcome == "navigated" })
        #expect(page.messages(for: "old").isEmpty, "the old document's reply is not delivered")
    }

    @Test(
        "A document notice posted through the bridge's channel, by the main frame or a subframe, changes nothing: calls go on"
    )
    func forgedNotice() async throws {
        let task = GateTask()
        let router = try makeRouter([task], policy: .anyOrigin(allowsSubframes: true))
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        let main = try #require(page.send("gate"))
        let widget = try #require(page.send("gate", from: .subframe("https://widget.example"), replyHandler: true))
        #expect(await eventually { task.started.withLock { $0 } == 2 })
        for _ in 0..<3 {
            page.post(Self.notice)
            page.post(Self.notice, from: .subframe(appOrigin), replyHandler: true)
        }
        #expect(router.pageGeneration == 0)
        #expect(log.all.contains { $0.outcome == "invalid_message" }, "an unknown kind, logged")
        task.open.store(true, ordering: .releasing)
        #expect(await page.reply(for: main)["data"] == "done", "the main frame's call settles normally")
        #expect(
            await eventually { page.deliveries.contains { $0.message?["id"] == .string(widget) } },
            "the widget's call settles normally")
        #expect(task.cancelled.withLock { $0 } == 0)
    }
}
