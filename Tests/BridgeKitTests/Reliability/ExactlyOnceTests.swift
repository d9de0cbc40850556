import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a call that settles twice, never settles, or is answered in the next page,
/// when calls, cancels, timeouts, navigations, bad bodies and close/teardown interleave.
///
/// Each seed drives one router (with an ``InMemoryPage`` as its channel) through a random but
/// replayable script of actions (``SplitMix64``). Actions come in bursts without waiting, so tasks,
/// timers and deliveries really run concurrently; before every navigation the driver waits until
/// every call that can settle has settled, which makes "nothing is delivered after a navigation"
/// an exact check. At the end the router is closed, or torn down (released) while calls are held.
@Suite("Reliability: every call settles exactly once under faults")
struct ExactlyOnceTests {
    @Test("Random interleavings: exactly one final reply or recorded settlement per call id", arguments: 0..<16)
    func interleavings(seed: Int) async throws {
        let model = try InterleavingModel(seed: UInt64(seed))
        await model.run(actions: 90)
        try await model.verify()
        print("exactly-once seed \(seed): \(model.summary)")
    }
}

/// One seeded run: the router, the page, and what the driver expects of every call.
final class InterleavingModel: @unchecked Sendable {
    // Only touched by the driving test task; the router's tasks touch `gates`, the page, the
    // reply log and `pageCallOutcomes`, which are all thread-safe.

    enum Frame: CaseIterable {
        case mainApp, subWidget, mainEvil, subAds

        var source: MessageSource {
            switch self {
            case .mainApp: .mainFrame(appOrigin)
            case .subWidget: .subframe("https://widgets.example")
            case .mainEvil: .mainFrame("https://evil.example")
            case .subAds: .subframe("https://ads.example.net")
            }
        }
    }

    struct Expectation {
        var outcomes: Set<String>
        let generation: UInt64
        let frame: Frame
        let hasHandler: Bool
        /// Refused by the access policy: the answer may only go through the reply handler.
        var refused: Bool
        /// A gated task that settles only on release, cancel, navigation, close or teardown.
        var held: Bool
        let task: String
        var progress: ClosedRange<Int> = 0...0
    }

    static let tasks = ["fast", "throwing", "progress", "chatty", "slow", "timeout", "widget", "typed"]

    let seed: UInt64
    private var rng: SplitMix64
    let gates = Gates()
    private(set) var page: InMemoryPage?
    private weak var weakRouter: BridgeRouter?
    private let log: TrafficLog
    let replies = ReplyLog()
    private var expectations: [String: Expectation] = [:]
    private var handlerKeys: [String] = []
    private var nextNumber = 0
    private var closed = false
    private var tornDown = false
    private var pageCallTasks: [Task<Void, Never>] = []
    private let pageCallOutcomes = OutcomeList()
    private(set) var badBodies = 0
    private var answeredPageCalls: Set<String> = []

    init(seed: UInt64) throws {
        self.seed = seed
        rng = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 17)
        let gates = self.gates
        let tasks: [any BridgeTask] = [
            ClosureTask(name: "fast") { (options: JSONValue, _: CallContext) in options },
            ClosureTask(name: "throwing") { (_: NoOptions, _: CallContext) -> NoResult in
                throw BridgeError(code: "boom", message: "thrown on purpose")
            },
            ClosureTask(name: "progress") { (options: JSONValue, context: CallContext) -> Int64 in
                let count = options.int("n") ?? 0
                for step in 0..<count { try await context.progress(["step": JSONValue.int(step)] as JSONValue) }
                return count
            },
            ClosureTask(name: "chatty") { (_: NoOptions, context: CallContext) -> NoResult in
                for step in 0..<5 { try await context.progress(step) }
                return NoResult()
            },
            ClosureTask(name: "slow") { (_: NoOptions, context: CallContext) -> String in
                await gates.wait(context.callID ?? "")
                try Task.checkCancellation()
                return "released"
            },
            ClosureTask(name: "timeout", timeout: .milliseconds(1)) { (_: NoOptions, context: CallContext) -> String in
                await gates.wait(context.callID ?? "")
                return "late"
            },
            ClosureTask(name: "widget", policy: .origins(["https://widgets.example"], allowsSubframes: true)) {
                (_: NoOptions, _: CallContext) in "widget"
            },
            ClosureTask(name: "typed") { (options: [String: Int], _: CallContext) in options.count },
        ]
        let router = try makeRouter(
            tasks,
            limits: BridgeLimits(
                maxPayloadBytes: 4096, maxDepth: 16, maxPendingCalls: 64,
                maxProgressPerCall: 3, maxUnansweredPageCalls: 8))
        weakRouter = router
        log = TrafficLog(router)
        page = InMemoryPage(router: router)
    }

    var summary: String {
        "\(expectations.count) calls (\(badBodies) bad bodies), \(pageCallTasks.count) native calls, "
            + (tornDown ? "torn down" : "closed")
    }

    // MARK: Driving

    func run(actions: Int) async {
        for _ in 0..<actions {
            guard !tornDown else { break }
            await step()
            if rng.chance(45) { await settleAll() }
        }
        await settleAll()
        if !tornDown {
            if rng.chance(25) { await tearDown() } else { await close() }
        }
    }

    private func step() async {
        let roll = rng.below(100)
        switch roll {
        case 0..<40: postCall()
        case 40..<46: postFireAndForget()
        case 46..<55: cancelSomething()
        case 55..<64: releaseSomething()
        case 64..<71:
            await settleAll()
            page?.navigate()
            for id in expectations.keys where expectations[id]?.held == true {
                expectations[id]?.held = false
                expectations[id]?.outcomes = ["navigated"]
            }
        case 71..<84: postBadBody()
        case 84..<92: startPageCall()
        case 92..<97: answerPageCall()
        default:
            if !closed, rng.chance(30) { await close() } else { await Task.yield() }
        }
    }

    private func newID(_ prefix: String) -> String {
        nextNumber += 1
        return "\(prefix)-\(seed)-\(nextNumber)"
    }

    private func frame() -> Frame {
        let roll = rng.below(100)
        return roll < 70 ? .mainApp : roll < 82 ? .subWidget : roll < 91 ? .mainEvil : .subAds
    }

    private func post(_ text: String, from frame: Frame, handlerKey: String?) {
        guard let router = page?.router else { return }
        let handler = handlerKey.map { key -> ReplyHandler in
            handlerKeys.append(key)
            return replies.handler(key)
        }
        router.receive(
            rng.chance(50) ? .string(text) : .json(Data(text.utf8)), from: frame.source, replyHandler: handler)
    }

    private func postCall() {
        let task = Self.tasks[rng.below(Self.tasks.count)]
        let frame = task == "widget" && rng.chance(70) ? .subWidget : frame()
        let id = newID("c")
        var options: JSONValue = ["k": .int(Int64(rng.below(1000))), "s": "a\u{2028}b</script>"]
        let allowed = task == "widget" ? frame == .subWidget : frame == .mainApp
        var expectation = Expectation(
            outcomes: [], generation: page?.router.pageGeneration ?? 0, frame: frame,
            hasHandler: rng.chance(frame.isMainApp ? 40 : 80), refused: !allowed,
            held: false, task: task)
        if !allowed {
            expectation.outcomes = ["forbidden"]
        } else {
            switch task {
            case "fast", "widget": expectation.outcomes = ["ok"]
            case "throwing": expectation.outcomes = ["boom"]
            case "progress":
                let count = rng.below(4)
                options = ["n": .int(Int64(count))]
                expectation.outcomes = ["ok"]
                expectation.progress = count...count
            case "chatty":
                expectation.outcomes = ["progress_limit_exceeded"]
                expectation.progress = 3...3
            case "slow":
                expectation.outcomes = ["ok", "cancelled"]
                expectation.held = true
            case "timeout": expectation.outcomes = ["timeout", "cancelled"]
            default:  // typed: wrong options half of the time
                if rng.chance(50) {
                    options = ["a": "not a number"]
                    expectation.outcomes = ["invalid_options"]
                } else {
                    options = ["a": 1]
                    expectation.outcomes = ["ok"]
                }
            }
        }
        if closed { expectation = expectation.closedVariant() }
        expectations[id] = expectation
        let text = jsonText(["v": 1, "kind": "call", "id": .string(id), "task": .string(task), "options": options])
        post(text, from: frame, handlerKey: expectation.hasHandler ? id : nil)
    }

    private func postFireAndForget() {
        let task = ["fast", "throwing", "progress", "slow"][rng.below(4)]
        let key = newID("f")
        post(
            jsonText(["v": 1, "kind": "call", "task": .string(task), "options": ["n": 2]]), from: frame(),
            handlerKey: rng.chance(50) ? key : nil)
    }

    private func postBadBody() {
        badBodies += 1
        let id = newID("b")
        let frame = frame()
        let generation = page?.router.pageGeneration ?? 0
        let valid = jsonText(["v": 1, "kind": "call", "id": .string(id), "task": "fast", "options": ["a": 1]])
        let text: String
        var outcome: String?
        switch rng.below(8) {
        case 0:
            text = String(valid.prefix(valid.count - 1 - rng.below(12)))
            outcome = "invalid_message"
        case 1:
            text = jsonText(["v": 1, "kind": "teleport", "id": .string(id)])
            outcome = "invalid_message"
        case 2:
            text = jsonText(["v": 2, "kind": "call", "id": .string(id), "task": "fast"])
            outcome = "invalid_message"
        case 3:
            text =
                #"{"v":1,"kind":"call","id":"\#(id)","task":"fast","options":"# + String(repeating: "[", count: 20)
                + String(repeating: "]", count: 20) + "}"
            outcome = "nesting_too_deep"
        case 4:
            text = jsonText([
                "v": 1, "kind": "call", "id": .string(id), "task": "fast",
                "options": .string(String(repeating: "x", count: 5000)),
            ])
            outcome = "payload_too_large"
        case 5:
            text = jsonText(["v": 1, "kind": "call", "id": .string(id), "task": "nope"])
            outcome = frame == .mainApp ? "unknown_task" : "forbidden"
        case 6:
            text = #"{"v":1,"kind":"call","task":"fast","options":{"#
            outcome = nil
        default:
            text = "\u{0}\u{2028}\u{FFFF}"
            outcome = nil
        }
        let hasHandler = rng.chance(frame.isMainApp ? 50 : 80)
        if let outcome {
            var expectation = Expectation(
                outcomes: [outcome], generation: generation, frame: frame, hasHandler: hasHandler,
                refused: outcome == "forbidden", held: false, task: "bad")
            if closed { expectation = expectation.closedVariant() }
            expectations[id] = expectation
        }
        post(text, from: frame, handlerKey: hasHandler ? id : nil)
    }

    private func cancelSomething() {
        let candidates = expectations.filter { $0.value.held || $0.value.task == "timeout" }.keys.sorted()
        guard !candidates.isEmpty else { return }
        let id = candidates[rng.below(candidates.count)]
        guard let expectation = expectations[id] else { return }
        let rightFrame = rng.chance(80)
        let frame = rightFrame ? expectation.frame : Frame.allCases.first { $0 != expectation.frame } ?? .mainApp
        post(
            jsonText(["v": 1, "kind": "cancel", "id": .string(id)]), from: frame,
            handlerKey: rng.chance(30) ? newID("k") : nil)
        if rightFrame, expectation.held, expectation.generation == page?.router.pageGeneration {
            expectations[id]?.held = false
            expectations[id]?.outcomes = ["cancelled"]
        }
    }

    private func releaseSomething() {
        let held = expectations.filter(\.value.held).keys.sorted()
        guard !held.isEmpty else { return }
        let id = held[rng.below(held.count)]
        gates.release(id)
        expectations[id]?.held = false
        expectations[id]?.outcomes = ["ok"]
    }

    private func startPageCall() {
        guard let router = page?.router else { return }
        let timeout: Duration? = rng.chance(50) ? .milliseconds(1 + rng.below(3)) : nil
        let outcomes = pageCallOutcomes
        pageCallTasks.append(
            Task {
                do {
                    _ = try await router.callPage("pick", options: ["x": 1], timeout: timeout)
                    outcomes.append("ok")
                } catch {
                    outcomes.append((error as? BridgeError)?.code ?? "\(error)")
                }
            })
    }

    private func answerPageCall() {
        guard let page else { return }
        let ids = page.messages.filter { $0["kind"] == "call" }.compactMap { $0.string("id") }
            .filter { !answeredPageCalls.contains($0) }
        guard let id = ids.first else { return }
        answeredPageCalls.insert(id)
        if rng.chance(70) { page.answer(id, data: ["picked": true]) } else { page.fail(id, code: "declined") }
    }

    private func close() async {
        guard let router = page?.router, !closed else { return }
        // Calls that may still be running when close starts may settle either way.
        for (id, expectation) in expectations where !isSettled(id) || expectation.held {
            expectations[id]?.outcomes.insert("unavailable")
            expectations[id]?.held = false
        }
        closed = true
        await router.close()
        for (id, _) in expectations where expectations[id]?.held == true { expectations[id]?.held = false }
    }

    /// Drops the page and with it the last strong reference to the router, with calls held.
    private func tearDown() async {
        // A host cancels its own work on teardown; an awaiting native caller would keep the router.
        for task in pageCallTasks { task.cancel() }
        deliveriesAtTeardown = page?.deliveries ?? []
        page = nil
        tornDown = true
        let released = await settle { weakRouter == nil }
        #expect(
            released,
            "seed \(seed): the router outlived its page \(pageCallOutcomes.all.count)/\(pageCallTasks.count) \(String(describing: weakRouter?.pendingCountsForTesting)) held \(gates.waitingCount)"
        )
    }

    private var deliveriesAtTeardown: [InMemoryPage.Delivery] = []

    // MARK: Checking

    private func replyRecords(_ id: String) -> [TrafficRecord] {
        log.all.filter { $0.direction == .outbound && $0.kind == .reply && $0.id == id }
    }

    private func isSettled(_ id: String) -> Bool { !replyRecords(id).isEmpty }

    /// Waits until every call that can settle by itself has its one reply record.
    private func settleAll() async {
        let waiting = expectations.filter { !$0.value.held }.keys
        let done = await settle { waiting.allSatisfy(isSettled) }
        if !done {
            let missing = waiting.filter { !isSettled($0) }.sorted()
            Issue.record("seed \(seed): calls never settled: \(missing.prefix(8))")
        }
    }

    func verify() async throws {
        let deliveries = page?.deliveries ?? deliveriesAtTeardown
        // Teardown: held calls get no record; their kept reply paths are answered `unavailable`.
        #expect(
            await settle { replies.notAnsweredOnce.isEmpty },
            "seed \(seed): reply handlers not answered exactly once: \(replies.notAnsweredOnce.prefix(8))")
        for (id, expectation) in expectations.sorted(by: { $0.key < $1.key }) {
            let records = replyRecords(id)
            let scripts = deliveries.filter { $0.path == .script && $0.message?["id"] == .string(id) }
            let finalScripts = scripts.filter { $0.message?["kind"] == "reply" }
            let handlerReply = replies.message(id).flatMap { $0["kind"] == "reply" ? $0 : nil }
            if tornDown, expectation.held {
                #expect(records.isEmpty && finalScripts.isEmpty, "seed \(seed) \(id): a torn-down call was answered")
                if expectation.hasHandler, !expectation.frame.isMainApp {
                    #expect(
                        handlerReply?["error"]?.string("code") == "unavailable", "seed \(seed) \(id): teardown answer")
                }
                continue
            }
            try #require(
                records.count == 1,
                "seed \(seed) \(id) (\(expectation.task)): \(records.count) final reply records: \(records.map { "\($0.outcome ?? "-")/\($0.reason?.description ?? "-")" }) all: \(log.all.filter { $0.id == id }.map { "\($0.direction) \($0.kind) \($0.outcome ?? "-")/\($0.reason?.description ?? "-")" })"
            )
            let record = records[0]
            #expect(
                expectation.outcomes.contains(record.outcome ?? ""),
                "seed \(seed) \(id) (\(expectation.task), \(expectation.frame)): outcome \(record.outcome ?? "nil") not in \(expectation.outcomes)"
            )
            let delivered = finalScripts.count + (handlerReply == nil ? 0 : 1)
            #expect(
                delivered == (record.reason == nil ? 1 : 0),
                "seed \(seed) \(id): delivered \(delivered) times, record reason \(record.reason?.description ?? "nil")"
            )
            if !expectation.frame.source.isMainFrame || expectation.refused {
                #expect(scripts.isEmpty, "seed \(seed) \(id): a script was evaluated for a subframe or refused call")
            }
            #expect(
                scripts.allSatisfy { $0.generation == expectation.generation },
                "seed \(seed) \(id): delivered to the page after a navigation")
            if let reply = finalScripts.first, let index = deliveries.firstIndex(of: reply) {
                let late = deliveries[(index + 1)...].filter { $0.message?["id"] == .string(id) }
                #expect(late.isEmpty, "seed \(seed) \(id): progress after the final reply")
            }
            if record.outcome == "ok" || record.outcome == "progress_limit_exceeded", record.reason == nil,
                expectation.frame.source.isMainFrame
            {
                let progress = scripts.filter { $0.message?["kind"] == "progress" }.count
                #expect(expectation.progress.contains(progress), "seed \(seed) \(id): \(progress) progress messages")
            }
        }
        if let router = page?.router {
            #expect(
                await settle { router.pendingCountsForTesting == (0, 0) },
                "seed \(seed): pending maps not empty after close")
        }
        let finished = await settle { pageCallOutcomes.all.count == pageCallTasks.count }
        #expect(finished, "seed \(seed): native-to-page calls never finished")
        if finished { for task in pageCallTasks { await task.value } }
        let allowed: Set<String> = [
            "ok", "declined", "timeout", "navigated", "unavailable", "cancelled", "too_many_pending_calls",
        ]
        #expect(pageCallOutcomes.all.allSatisfy(allowed.contains))
    }
}

/// Outcomes of native-to-page calls, appended from their tasks.
final class OutcomeList: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}

extension InterleavingModel.Frame {
    fileprivate var isMainApp: Bool { self == .mainApp }
}

extension InterleavingModel.Expectation {
    /// Posted after close: every id is answered `unavailable`.
    fileprivate func closedVariant() -> Self {
        var copy = self
        // A body that is too large, too deep or not a call is refused as such, also by a closed
        // router; only calls are answered `unavailable`.
        let unreadable: Set<String> = ["payload_too_large", "nesting_too_deep", "invalid_message"]
        copy.outcomes = outcomes.isSubset(of: unreadable) ? outcomes : ["unavailable"]
        copy.held = false
        copy.refused = false  // a closed router answers before any policy check
        copy.progress = 0...0
        return copy
    }
}
