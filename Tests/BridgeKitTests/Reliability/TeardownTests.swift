import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// A task object whose lifetime the tests watch.
private final class TrackedTask: BridgeTask, Sendable {
    let name = "wait"
    let gates: Gates
    init(gates: Gates) { self.gates = gates }
    func run(_ options: NoOptions, context: CallContext) async throws -> String {
        await gates.wait(context.callID ?? "")
        try Task.checkCancellation()
        return "done"
    }
}

/// What an app's screen holds: the router (with its tasks) and the attachment to the web view's
/// content controller. The controller is the app's too, and outlives the screen.
@MainActor
private final class ScreenOwner {
    let router: BridgeRouter
    let task: TrackedTask
    let attachment: BridgeAttachment

    init(registry: RecordingRegistry, gates: Gates, names: [String] = ["webbridge"]) throws {
        router = try makeRouter()
        task = TrackedTask(gates: gates)
        try router.register(task)
        attachment = BridgeAttachment(router: router, names: names)
        #expect(attachment.attach(to: registry) == .attached)
    }
}

/// Kind of fault: a screen that is never released because the web view's content controller
/// keeps the bridge (R23), and a second "add" of a handler name that WebKit turns into an
/// exception (R24).
@MainActor
@Suite("Reliability: teardown frees everything; handler names are added and removed in pairs")
struct TeardownTests {
    @Test("R23 the owner, router and tasks are freed when the owner goes; every added name is removed")
    func r23OwnerReleased() async throws {
        let registry = RecordingRegistry()
        let gates = Gates()
        weak var weakOwner: ScreenOwner?
        weak var weakRouter: BridgeRouter?
        weak var weakTask: TrackedTask?
        do {
            let owner = try ScreenOwner(registry: registry, gates: gates, names: ["webbridge", "webbridgeHistory"])
            weakOwner = owner
            weakRouter = owner.router
            weakTask = owner.task
            // A call still running when the screen goes away.
            let proxy = try #require(registry.installed["webbridge"])
            proxy.receive(
                .string(jsonText(["v": 1, "kind": "call", "id": "c1", "task": "wait"])), from: .mainFrame(appOrigin))
            #expect(await settle { gates.waitingCount == 1 })
        }
        #expect(weakOwner == nil)
        #expect(await settle { weakRouter == nil }, "the router outlived its owner")
        #expect(await settle { weakTask == nil }, "the task outlived the router")
        #expect(gates.waitingCount == 0, "the running call was cancelled")
        // Released off the main thread (the owner's last reference can go on another thread),
        // the names are removed on the main actor's next turn (BridgeAttachment's deinit).
        #expect(await settle { registry.installed.isEmpty })
        #expect(Set(registry.addedNames) == Set(registry.removedNames))
        #expect(registry.addedNames.sorted() == ["webbridge", "webbridgeHistory"])
        #expect(registry.duplicateAdds.isEmpty)
    }

    @Test(
        "R23 a router released while the controller still holds its proxy: later messages are dropped or answered unavailable"
    )
    func r23ProxyOutlivesRouter() async throws {
        let registry = RecordingRegistry()
        weak var weakRouter: BridgeRouter?
        var attachment: BridgeAttachment?
        do {
            let router = try makeRouter([echoTask])
            weakRouter = router
            attachment = BridgeAttachment(router: router)
            #expect(attachment?.attach(to: registry) == .attached)
        }
        #expect(await settle { weakRouter == nil }, "the proxy or the attachment kept the router")
        let proxy = try #require(registry.installed["webbridge"])
        #expect(proxy.router == nil)
        let replies = ReplyLog()
        let call = jsonText(["v": 1, "kind": "call", "id": "late-1", "task": "echo"])
        proxy.receive(.string(call), from: .mainFrame(appOrigin), replyHandler: replies.handler("with"))
        proxy.receive(.json(Data(call.utf8)), from: .mainFrame(appOrigin))
        proxy.receive(.absent, from: .mainFrame(appOrigin), replyHandler: replies.handler("absent"))
        proxy.receive(
            .string("{\"id\":\"x\", broken"), from: .subframe("https://ads.example"),
            replyHandler: replies.handler("broken"))
        proxy.receive(
            .string(jsonText(["v": 1, "kind": "call", "task": "echo"])), from: .mainFrame(appOrigin),
            replyHandler: replies.handler("no-id"))
        #expect(replies.notAnsweredOnce.isEmpty)
        let answer = try #require(replies.message("with"))
        #expect(answer["id"] == "late-1" && answer["error"]?.string("code") == "unavailable")
        #expect(replies.message("broken")?["error"]?.string("code") == "unavailable")
        #expect(replies.answers("absent") == [nil] && replies.answers("no-id") == [nil])
        attachment?.detach()
        #expect(Set(registry.addedNames) == Set(registry.removedNames) && registry.installed.isEmpty)
    }

    @Test("R24 attaching twice, or a second router to the same controller, never adds a name twice")
    func r24() throws {
        let registry = RecordingRegistry()
        let first = BridgeAttachment(router: try makeRouter())
        let secondRouter = try makeRouter()
        let second = BridgeAttachment(router: secondRouter)
        let sameRouterAgain = BridgeAttachment(router: try makeRouter())
        #expect(first.attach(to: registry) == .attached)
        #expect(first.attach(to: registry) == .alreadyAttached)
        #expect(second.attach(to: registry) == .nameInUse("webbridge"))
        #expect(sameRouterAgain.attach(to: registry) == .nameInUse("webbridge"))
        #expect(registry.events == [.add("webbridge")])
        first.detach()
        first.detach()
        #expect(second.attach(to: registry) == .attached)
        #expect(registry.installed["webbridge"]?.router === secondRouter)
        // Moving an attachment to another controller removes it from the first one.
        let other = RecordingRegistry()
        #expect(second.attach(to: other) == .attached)
        #expect(registry.events == [.add("webbridge"), .remove("webbridge"), .add("webbridge"), .remove("webbridge")])
        #expect(other.events == [.add("webbridge")])
        #expect(registry.duplicateAdds.isEmpty && other.duplicateAdds.isEmpty)
        for recorder in [registry, other] {
            // Per name, the log alternates add, remove, add, ... (never two adds in a row).
            var installed = Set<String>()
            for event in recorder.events {
                switch event {
                case .add(let name): #expect(installed.insert(name).inserted, "second add of \(name)")
                case .remove(let name): #expect(installed.remove(name) != nil, "remove of \(name) that was not added")
                }
            }
        }
        second.detach()
        #expect(Set(other.addedNames) == Set(other.removedNames))
    }
}

/// Kind of fault: bookkeeping that grows with every call (a map entry, a timer, a task that is
/// never removed), visible only after many calls.
@Suite("Reliability: long runs leave nothing behind")
struct LongRunTests {
    @Test("20,000 calls of every kind leave the router's pending maps empty; each is answered once")
    func longRun() async throws {
        let progress = ClosureTask(name: "progress") { (_: NoOptions, context: CallContext) -> Int in
            try await context.progress(1)
            return 1
        }
        let failing = ClosureTask(name: "failing") { (_: NoOptions, _: CallContext) -> NoResult in
            throw CancellationError()
        }
        let router = try makeRouter([echoTask, progress, failing])
        let counts = TrafficCounts(router)
        let scripts = Mutex(0)
        router.connect(PageChannel { _ in scripts.withLock { $0 += 1 } })
        let replies = ReplyLog()
        let tasks = ["echo", "progress", "failing", "missing"]
        let total = 20_000
        let batch = 2000
        for start in stride(from: 0, to: total, by: batch) {
            for number in start..<(start + batch) {
                let id = "r-\(number)"
                let text =
                    #"{"v":1,"kind":"call","id":"\#(id)","task":"\#(tasks[number % tasks.count])","options":{"n":\#(number)}}"#
                let handler = number.isMultiple(of: 3) ? replies.handler(id) : nil
                router.receive(
                    number.isMultiple(of: 2) ? .string(text) : .json(Data(text.utf8)), from: .mainFrame(appOrigin),
                    replyHandler: handler)
                if number.isMultiple(of: 7) {
                    router.receive(.string(#"{"v":1,"kind":"cancel","id":"\#(id)"}"#), from: .mainFrame(appOrigin))
                }
            }
            let settled = await settle(tries: 200_000) { counts.snapshot.finals >= start + batch }
            #expect(settled, "batch at \(start) did not settle")
        }
        #expect(await settle { router.pendingCountsForTesting == (0, 0) })
        let final = counts.snapshot
        #expect(final.finals == total && final.finalIDs.count == total, "every call answered exactly once")
        #expect(final.undelivered == 0, "every answer was delivered")
        #expect(scripts.withLock { $0 } == total + final.progress)
        #expect(replies.notAnsweredOnce.isEmpty)
        #expect(final.inboundCalls == total)
    }
}

/// Counts traffic records as they come (a full log would make polling it quadratic).
private final class TrafficCounts: Sendable {
    struct Counts {
        var finals = 0
        var finalIDs = Set<String>()
        var undelivered = 0
        var progress = 0
        var inboundCalls = 0
    }

    private let counts = Mutex(Counts())

    init(_ router: BridgeRouter) {
        router.setTrafficObserver { [weak self] record in
            self?.counts.withLock { counts in
                switch (record.direction, record.kind) {
                case (.outbound, .reply):
                    counts.finals += 1
                    if let id = record.id { counts.finalIDs.insert(id) }
                    if record.reason != nil { counts.undelivered += 1 }
                case (.outbound, .progress) where record.reason == nil: counts.progress += 1
                case (.inbound, .call): counts.inboundCalls += 1
                default: break
                }
            }
        }
    }

    var snapshot: Counts { counts.withLock { $0 } }
}
