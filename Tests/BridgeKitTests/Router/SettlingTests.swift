import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a call that settles while it is still being started (an immediate task that
/// cancels itself, times out at once, or whose reply makes the page call again from inside the
/// delivery) settles twice, never, or leaves its entry behind.
@Suite("Settling: calls that settle before their start has finished settle exactly once")
struct SettlingTests {
    static func finalReplies(_ page: InMemoryPage) -> [JSONValue] {
        page.messages.filter { $0["kind"] == "reply" }
    }

    static func body(_ task: String, id: String, options: JSONValue) -> MessageBody {
        .string(jsonText(["v": 1, "kind": "call", "task": .string(task), "id": .string(id), "options": options]))
    }

    @Test(
        "the page reuses the id from inside the reply's delivery, 100 times in a row",
        arguments: [TaskExecution.immediate, .concurrent])
    func reentrantReuse(execution: TaskExecution) async throws {
        let router = try makeRouter([
            ClosureTask(name: "echo", execution: execution) { (options: JSONValue, _: CallContext) in options }
        ])
        let replies = Mutex<[JSONValue]>([])
        let again = Locked<BridgeRouter?>(router)
        router.connect(
            PageChannel { script in
                let message = PageScriptDecoder.message(in: script)
                guard let message, message["kind"] == "reply" else { return }
                let count = replies.withLock {
                    $0.append(message)
                    return $0.count
                }
                // Still inside the previous call's delivery (its settle, or its start for an immediate task).
                if count < 100 {
                    again.value?.receive(
                        Self.body("echo", id: "x", options: .int(Int64(count))), from: .mainFrame(appOrigin))
                }
            })
        router.receive(Self.body("echo", id: "x", options: 0), from: .mainFrame(appOrigin))
        #expect(await eventually { replies.withLock { $0.count } == 100 })
        try await Task.sleep(for: .milliseconds(20))
        let all = replies.withLock { $0 }
        #expect(all.count == 100)
        #expect(all.map { $0["data"] } == (0..<100).map { JSONValue.int(Int64($0)) })
        #expect(router.pendingCountsForTesting.calls == 0)
        again.set(nil)
    }

    @Test(
        "immediate tasks that cancel themselves or time out before they first suspend: one reply per call")
    func settledWhileStarting() async throws {
        let pageBox = Locked<InMemoryPage?>(nil)
        let tasks: [any BridgeTask] = [
            ClosureTask(name: "selfCancel", execution: .immediate) { (_: JSONValue, context: CallContext) -> Int in
                pageBox.value?.cancel(context.callID ?? "")
                return 1
            },
            ClosureTask(name: "selfCancelThenWait", execution: .immediate) {
                (_: JSONValue, context: CallContext) -> Int in
                pageBox.value?.cancel(context.callID ?? "")
                try await Task.sleep(for: .milliseconds(1))
                return 1
            },
            ClosureTask(name: "zeroTimeout", timeout: .zero, execution: .immediate) {
                (_: JSONValue, _: CallContext) -> Int in 1
            },
            ClosureTask(name: "zeroTimeoutYield", timeout: .zero, execution: .immediate) {
                (_: JSONValue, _: CallContext) -> Int in
                await Task.yield()
                return 1
            },
        ]
        let router = try makeRouter(tasks)
        let page = InMemoryPage(router: router)
        pageBox.set(page)
        let names = ["selfCancel", "selfCancelThenWait", "zeroTimeout", "zeroTimeoutYield"]
        // Seven ids for 400 calls: an id is reused as soon as its call has settled.
        for index in 0..<400 { page.send(names[index % names.count], options: 1, id: "m\(index % 7)") }
        #expect(
            await eventually(20_000) {
                Self.finalReplies(page).count >= 400 && router.pendingCountsForTesting.calls == 0
            })
        try await Task.sleep(for: .milliseconds(20))
        let codes = Self.finalReplies(page).map { $0["ok"] == true ? "ok" : $0["error"]?.string("code") ?? "?" }
        #expect(codes.count == 400)
        #expect(Set(codes).isSubset(of: ["ok", "cancelled", "timeout", "invalid_message"]), "\(Set(codes))")
        #expect(router.pendingCountsForTesting.calls == 0)
        pageBox.set(nil)
    }
}
