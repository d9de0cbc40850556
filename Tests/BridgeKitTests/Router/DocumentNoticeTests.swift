import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a page generation that changes when a navigation *starts*, stranding the calls
/// of a document that stays (a navigation that never commits), or that changes twice for one
/// document. The generation follows commits: the host's report, or the document notice of a host
/// that cannot observe commits.
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

    @Test("A main-frame document notice that no commit report preceded starts a new generation: the old document's calls settle navigated")
    func noticeWithoutReport() async throws {
        let task = GateTask()
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("gate", id: "old")
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        page.post(Self.notice)
        #expect(router.pageGeneration == 1)
        #expect(await eventually { task.cancelled.withLock { $0 } == 1 })
        #expect(log.all.contains { $0.id == "old" && $0.outcome == "navigated" })
        #expect(page.messages(for: "old").isEmpty, "the old document's reply is not delivered")
    }

    @Test("The notice that follows a reported commit changes nothing; the next unreported one does")
    func noticeAfterReport() async throws {
        let task = GateTask()
        let router = try makeRouter([task])
        let page = InMemoryPage(router: router)
        router.pageDidCommitNavigation()
        #expect(router.pageGeneration == 1)
        page.post(Self.notice)
        #expect(router.pageGeneration == 1, "the committed document's own notice")
        let id = try #require(page.send("gate"))
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        task.open.store(true, ordering: .releasing)
        #expect(await page.reply(for: id)["data"] == "done", "the document's call settles normally")
        page.post(Self.notice)
        #expect(router.pageGeneration == 2, "a document no host reported (back-forward cache restore)")
    }

    @Test("A subframe's document notice is ignored; the main frame's calls go on")
    func subframeNotice() async throws {
        let task = GateTask()
        let router = try makeRouter([task], policy: .anyOrigin(allowsSubframes: true))
        let page = InMemoryPage(router: router)
        let id = try #require(page.send("gate"))
        #expect(await eventually { task.started.withLock { $0 } == 1 })
        page.post(Self.notice, from: .subframe(appOrigin))
        #expect(router.pageGeneration == 0)
        task.open.store(true, ordering: .releasing)
        #expect(await page.reply(for: id)["data"] == "done")
        #expect(task.cancelled.withLock { $0 } == 0)
    }

    @Test("A notice is never answered, also when posted with a reply handler")
    func noticeNotAnswered() async throws {
        let router = try makeRouter([GateTask()])
        let page = InMemoryPage(router: router)
        page.post(Self.notice, replyHandler: true)
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.messages.isEmpty)
        #expect(router.pageGeneration == 1)
    }
}
