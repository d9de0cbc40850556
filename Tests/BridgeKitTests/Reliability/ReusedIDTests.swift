import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: something that belongs to one call (its work, timer, cancel or progress)
/// settles or reaches a *later* call that reuses the id, so that call gets another call's data
/// or error. Ids are the page's; a hostile page reuses them at will.
@Suite("Reliability: a call's work, cancel and progress never reach a later call with the same id")
struct ReusedIDTests {
    /// A wait that ignores cancellation, as a task that never checks for it.
    final class Latch: Sendable {
        private struct State {
            var open: Set<String> = []
            var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        }

        private let state = Mutex(State())

        func wait(_ key: String) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.open.contains(key) { return true }
                    state.waiters[key, default: []].append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func open(_ key: String) {
            let waiting = state.withLock { state in
                state.open.insert(key)
                return state.waiters.removeValue(forKey: key) ?? []
            }
            for continuation in waiting { continuation.resume() }
        }

        var waitingCount: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }
    }

    /// A task that waits for the latch named by its options, ignoring cancellation.
    static func stubborn(_ latch: Latch, progress: Int = 0) -> ClosureTask<JSONValue, JSONValue> {
        ClosureTask(name: "stubborn") { (options: JSONValue, context: CallContext) -> JSONValue in
            guard case .string(let key) = options else { return options }
            await latch.wait(key)
            for step in 0..<progress { try? await context.progress(step) }
            await latch.wait(key + "-end")
            return options
        }
    }

    static func finalReplies(_ page: InMemoryPage, _ id: String) -> [JSONValue] {
        page.messages(for: id).filter { $0["kind"] == "reply" }
    }

    @Test("a cancelled call's work that ends after its id was reused does not settle the new call")
    func staleWork() async throws {
        let latch = Latch()
        let page = InMemoryPage(router: try makeRouter([Self.stubborn(latch)]))
        latch.open("A-end")
        page.send("stubborn", options: "A", id: "x")
        #expect(await eventually { latch.waitingCount == 1 })
        page.cancel("x")
        #expect(await eventually { Self.finalReplies(page, "x").count == 1 })
        page.send("stubborn", options: "B", id: "x")  // the id is free again: admitted
        #expect(await eventually { latch.waitingCount == 2 })
        latch.open("A")  // the first call's work ends now, with "A"
        try await Task.sleep(for: .milliseconds(50))
        #expect(Self.finalReplies(page, "x").count == 1, "the new call was settled by the old call's work")
        latch.open("B")
        latch.open("B-end")
        #expect(await eventually { Self.finalReplies(page, "x").count == 2 })
        #expect(Self.finalReplies(page, "x").map { $0["data"] } == [nil, "B"])
        #expect(page.router.pendingCountsForTesting.calls == 0)
    }

    @Test("a cancelled call's progress after its id was reused neither reaches nor counts against the new call")
    func staleProgress() async throws {
        let latch = Latch()
        // Each call sends two progress messages, the limit: the old call's must not count for the new one.
        let router = try makeRouter([Self.stubborn(latch, progress: 2)], limits: BridgeLimits(maxProgressPerCall: 2))
        let page = InMemoryPage(router: router)
        page.send("stubborn", options: "A", id: "x")
        #expect(await eventually { latch.waitingCount == 1 })
        page.cancel("x")
        #expect(await eventually { Self.finalReplies(page, "x").count == 1 })
        page.send("stubborn", options: "B", id: "x")
        #expect(await eventually { latch.waitingCount == 2 })
        latch.open("A")  // the old work sends its two progress messages now
        latch.open("A-end")
        try await Task.sleep(for: .milliseconds(50))
        #expect(page.messages(for: "x").filter { $0["kind"] == "progress" }.isEmpty)
        latch.open("B")  // the new call's own two progress messages are within its limit
        #expect(await eventually { latch.waitingCount == 1 })
        latch.open("B-end")
        #expect(await eventually { Self.finalReplies(page, "x").count == 2 })
        let progress = page.messages(for: "x").filter { $0["kind"] == "progress" }
        #expect(progress.count == 2)
        #expect(Self.finalReplies(page, "x").last?["data"] == "B")
    }

    @Test(
        "a duplicate id while the first call is pending: refused, and the first call settles once, with its own outcome",
        arguments: ["complete", "cancel", "timeout"], [TaskExecution.immediate, .concurrent])
    func duplicateWhilePending(ending: String, execution: TaskExecution) async throws {
        let gates = Gates()
        let task = ClosureTask(
            name: "gated", timeout: ending == "timeout" ? .seconds(2) : nil,
            execution: execution
        ) { (options: JSONValue, context: CallContext) -> JSONValue in
            await gates.wait(context.callID ?? "")
            try Task.checkCancellation()
            return options
        }
        let router = try makeRouter([task])
        let page = InMemoryPage(router: router)
        page.send("gated", options: 1, id: "x")
        for _ in 0..<3 { page.send("gated", options: 2, id: "x") }
        // Admission is decided on the calling thread, so this holds whatever the scheduler does.
        // The refusals themselves reach the page on tasks of their own: when the cooperative pool
        // is busy (ThreadSanitizer, other suites' thousands of calls), they may arrive after the
        // timeout's reply, so the test judges the replies, not the moment they arrive.
        #expect(router.pendingCountsForTesting.calls == 1)
        // Complete and cancel end the work while it runs; the timeout may fire before it starts.
        if ending != "timeout" { #expect(await eventually { gates.waitingCount == 1 }) }
        if ending == "complete" { gates.release("x") }
        if ending == "cancel" { page.cancel("x") }
        for _ in 0..<2_000 where Self.finalReplies(page, "x").count < 4 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))  // a second final reply of the first call would show now
        let replies = Self.finalReplies(page, "x")
        let codes = replies.map { $0["ok"] == true ? "ok" : $0["error"]?.string("code") ?? "?" }
        let expected = ["complete": "ok", "cancel": "cancelled", "timeout": "timeout"][ending] ?? "?"
        #expect(codes.sorted() == ["invalid_message", "invalid_message", "invalid_message", expected].sorted())
        if ending == "complete" { #expect(replies.filter { $0["ok"] == true }.map { $0["data"] } == [1]) }
        #expect(router.pendingCountsForTesting.calls == 0)
    }

    @Test("many threads posting colliding ids with cancels: every post answered once, with its own data")
    func collidingIDs() async throws {
        let tasks: [any BridgeTask] = [
            ClosureTask(name: "now", execution: .immediate) { (options: JSONValue, _: CallContext) in options },
            ClosureTask(name: "later") { (options: JSONValue, _: CallContext) in options },
            ClosureTask(name: "yield", execution: .immediate) { (options: JSONValue, _: CallContext) in
                await Task.yield()
                return options
            },
        ]
        let router = try makeRouter(tasks)
        let answers = Mutex<[Int: [String?]]>([:])
        let perThread = 400
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Mutex(4)
            for thread in 0..<4 {
                // Threads, not Dispatch workers, which would starve the pool the tasks run on.
                Thread.detachNewThread {
                    var rng = SplitMix64(seed: UInt64(thread + 1))
                    for index in 0..<perThread {
                        let key = thread * perThread + index
                        answers.withLock { $0[key] = [] }
                        let handler = ReplyHandler(carriesFinalReplies: true) { json in
                            answers.withLock { $0[key, default: []].append(json) }
                        }
                        let body = jsonText([
                            "v": 1, "kind": "call", "id": .string("i\(rng.below(16))"),
                            "task": .string(["now", "later", "yield"][rng.below(3)]), "options": .int(Int64(key)),
                        ])
                        router.receive(.string(body), from: .mainFrame(appOrigin), replyHandler: handler)
                        if rng.chance(30) {
                            router.receive(
                                .string(jsonText(["v": 1, "kind": "cancel", "id": .string("i\(rng.below(16))")])),
                                from: .mainFrame(appOrigin))
                        }
                        usleep(100)
                    }
                    if remaining.withLock({
                        $0 -= 1
                        return $0
                    }) == 0 {
                        done.resume()
                    }
                }
            }
        }
        #expect(await eventually(20_000) { answers.withLock { $0.values.allSatisfy { $0.count == 1 } } })
        let all = answers.withLock { $0 }
        #expect(all.count == 4 * perThread)
        var wrong: [String] = []
        for (key, texts) in all {
            guard texts.count == 1, let text = texts[0],
                let message = try? BridgeJSON.decode(JSONValue.self, from: Data(text.utf8))
            else {
                wrong.append("\(key): \(texts)")
                continue
            }
            if message["ok"] == true, message["data"] != .int(Int64(key)) { wrong.append("\(key): \(text)") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) posts answered wrongly, e.g. \(wrong.prefix(3))")
        #expect(router.pendingCountsForTesting.calls == 0)
    }
}
