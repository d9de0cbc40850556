import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a call started in place settles twice, never settles, or cannot be cancelled
/// because the router did not yet hold its work when the cancel came.
@Suite("TaskExecution: immediate tasks start on the delivering thread and settle exactly once")
struct TaskExecutionTests {
    /// How long the waiting tasks sleep: only a cancel ends the sleep. A shorter sleep (it was 30 s)
    /// can end on its own when the test pool is starved (the thread-sanitizer run of CI), and then
    /// a cancel that did arrive finds a task no longer waiting.
    static let untilCancelled = Duration.seconds(3600)

    /// A task that starts immediately and reports the thread it started on.
    struct ThreadProbe: BridgeTask {
        let name = "probe"
        let execution = TaskExecution.immediate
        let started: Locked<pthread_t?>
        func run(_ options: NoOptions, context: CallContext) async throws -> Bool {
            started.set(pthread_self())
            return true
        }
    }

    @Test("an immediate task that never suspends is answered before receive returns, on the caller's thread")
    func answeredInPlace() throws {
        let probe = ThreadProbe(started: Locked(nil))
        let page = InMemoryPage(router: try makeRouter([probe]))
        let caller = pthread_self()
        for index in 0..<100 {
            page.send("probe", id: "same")  // the id is free again as soon as the call settled
            #expect(page.messages(for: "same").count == index + 1)
        }
        #expect(probe.started.value.map { pthread_equal($0, caller) != 0 } == true)
        #expect(page.messages(for: "same").allSatisfy { $0["ok"] == true && $0["data"] == true })
    }

    @Test("a concurrent task (the default) also settles exactly once")
    func concurrentDefault() async throws {
        #expect(echoTask.execution == .concurrent)
        let page = InMemoryPage(router: try makeRouter([echoTask]))
        #expect(await page.call("echo", options: 7)["data"] == 7)
    }

    @Test("an immediate task that suspends can still be cancelled by the page")
    func cancelAfterSuspension() async throws {
        let sawCancel = Locked(false)
        let task = ClosureTask(name: "wait", execution: .immediate) { (_: NoOptions, _: CallContext) -> NoResult in
            do { try await Task.sleep(for: Self.untilCancelled) } catch { sawCancel.set(true) }
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        page.send("wait", id: "w")
        page.cancel("w")
        #expect(await page.reply(for: "w")["error"]?.string("code") == "cancelled")
        #expect(await eventually { sawCancel.value })
        try await Task.sleep(for: .milliseconds(50))
        #expect(page.messages(for: "w").count == 1)
    }

    /// New-user finding: a page's timeout was logged as `cancelled`, and the cancel record had
    /// no task name, so the log could not tell a timeout from an abort nor say which task.
    @Test(
        "a cancel for the page's time limit settles the call timeout; the log's cancel record names the task",
        arguments: [false, true])
    func cancelForTimeLimit(timedOut: Bool) async throws {
        let sawCancel = Locked(false)
        let task = ClosureTask(name: "wait") { (_: NoOptions, _: CallContext) -> NoResult in
            do { try await Task.sleep(for: Self.untilCancelled) } catch { sawCancel.set(true) }
            return NoResult()
        }
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("wait", id: "w")
        page.cancel("w", timedOut: timedOut)
        let code = timedOut ? "timeout" : "cancelled"
        #expect(await page.reply(for: "w")["error"]?.string("code") == code)
        #expect(await eventually { sawCancel.value })
        let cancel = try #require(log.all.first { $0.kind == .cancel })
        #expect(cancel.task == "wait" && cancel.outcome == nil, "\(cancel)")
        // The reply's record is written once the engine evaluated its script, which may be after
        // the page has the reply.
        #expect(
            await eventually { log.all.contains { $0.direction == .outbound && $0.id == "w" && $0.outcome == code } },
            "\(log.all)")
        // A cancel that matches no call has no task to name.
        page.cancel("none", timedOut: timedOut)
        #expect(await eventually { log.all.contains { $0.id == "none" && $0.outcome == "dropped" && $0.task == nil } })
    }

    @Test("a cancel that arrives while an immediate task is still starting reaches the task")
    func cancelBeforeAttach() async throws {
        let sawCancel = Locked(false)
        let pageBox = Locked<InMemoryPage?>(nil)
        let task = ClosureTask(name: "self-cancel", execution: .immediate) {
            (_: NoOptions, context: CallContext) -> NoResult in
            // Before the first suspension: the router has admitted the call but holds no work yet.
            pageBox.value?.cancel(context.callID ?? "")
            do { try await Task.sleep(for: Self.untilCancelled) } catch { sawCancel.set(true) }
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        pageBox.set(page)
        page.send("self-cancel", id: "s")
        #expect(await page.reply(for: "s")["error"]?.string("code") == "cancelled")
        #expect(await eventually { sawCancel.value })
        try await Task.sleep(for: .milliseconds(50))
        #expect(page.messages(for: "s").count == 1)
    }
}
