import BridgeKitTesting
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// Progress values and events take a place in the router's ``OutboundWindow`` before they are
/// encoded: a task's parallel workers sending 4,000 progress values of 64 KiB at once grew the
/// app by about 780 MiB (attack 25, F5), every one held as a script until the engine took it.
@Suite("Router: progress and events on their way to the page are bounded")
struct OutboundWindowTests {
    // MARK: The value type's transitions

    /// One event of the window and what it must return: `take` a sender (whether it has a place
    /// now), `giveBack` a place (the sender handed it), `close` (the senders let go).
    enum Step: Equatable {
        case take(Int, placed: Bool)
        case giveBack(handedTo: Int?)
        case close(letGo: [Int])
        /// A waiting sender leaves (its Swift task was cancelled): whether it still waited.
        case withdraw(Int, found: Bool)
    }

    /// Runs `steps` on a window of `size` and records the first step that returned otherwise.
    private func run(_ steps: [Step], size: Int) {
        var window = OutboundWindow<Int>(size: size)
        for (index, step) in steps.enumerated() {
            let actual: Step
            switch step {
            case .take(let sender, _): actual = .take(sender, placed: window.take(sender))
            case .giveBack: actual = .giveBack(handedTo: window.giveBack())
            case .close: actual = .close(letGo: window.close())
            case .withdraw(let sender, _):
                actual = .withdraw(sender, found: window.withdraw { $0 == sender } != nil)
            }
            #expect(actual == step, "step \(index)")
        }
    }

    @Test("places are taken up to the window, then senders wait and are handed places in arrival order")
    func transitions() {
        run(
            [
                .take(1, placed: true), .take(2, placed: true), .take(3, placed: false), .take(4, placed: false),
                .giveBack(handedTo: 3),
                // A free place does not let a newcomer pass the one still waiting.
                .take(5, placed: false),
                .giveBack(handedTo: 4), .giveBack(handedTo: 5), .giveBack(handedTo: nil), .giveBack(handedTo: nil),
                .take(6, placed: true), .take(7, placed: true), .take(8, placed: false),
            ], size: 2)
    }

    @Test("closing hands every waiting sender on, oldest first; later senders never wait")
    func closing() {
        run(
            [
                .take(1, placed: true), .take(2, placed: false), .take(3, placed: false), .close(letGo: [2, 3]),
                .take(4, placed: true), .take(5, placed: true), .giveBack(handedTo: nil), .close(letGo: []),
            ], size: 1)
    }

    @Test("a sender that leaves while it waits takes no place; the others keep their order")
    func withdrawing() {
        run(
            [
                .take(1, placed: true), .take(2, placed: false), .take(3, placed: false), .take(4, placed: false),
                .withdraw(3, found: true),
                // Handed a place or let go already: nothing to take out.
                .withdraw(3, found: false), .withdraw(1, found: false),
                .giveBack(handedTo: 2), .withdraw(2, found: false), .giveBack(handedTo: 4),
                .withdraw(4, found: false), .giveBack(handedTo: nil), .take(5, placed: true),
                .take(6, placed: false), .close(letGo: [6]), .withdraw(6, found: false),
            ], size: 1)
    }

    @Test("a window of 0 or less bounds nothing", arguments: [0, -1])
    func unbounded(size: Int) {
        run((0..<100).map { .take($0, placed: true) } + [.giveBack(handedTo: nil)], size: size)
    }

    @Test("a long wait keeps its order while the storage is compacted")
    func longQueue() {
        var window = OutboundWindow<Int>(size: 1)
        var placed = [window.take(-1)]
        for value in 0..<500 { placed.append(window.take(value)) }
        var handed: [Int] = []
        for value in 500..<1000 {
            handed.append(window.giveBack() ?? -2)
            placed.append(window.take(value))
        }
        while let next = window.giveBack() { handed.append(next) }
        #expect(placed == [true] + Array(repeating: false, count: 1000))
        #expect(handed == Array(0..<1000))
    }

    // MARK: The router

    /// A channel that records every script and holds the evaluation of the one whose text contains
    /// `marker` until ``release()``; with a window of one place, the senders after it wait.
    final class HoldingChannel: Sendable {
        let scripts = Mutex<[String]>([])
        private let held = AsyncStream<Void>.makeStream()
        private let marker: String
        init(holding marker: String) { self.marker = marker }
        var channel: PageChannel {
            PageChannel { script in
                self.scripts.withLock { $0.append(script) }
                if script.contains(self.marker) { for await _ in self.held.stream { break } }
            }
        }
        var count: Int { scripts.withLock { $0.count } }
        func release() { held.continuation.finish() }
    }

    /// A router with a window of one place, connected to a ``HoldingChannel`` holding `marker`.
    private func routerWithOnePlace(holding marker: String) throws -> (BridgeRouter, HoldingChannel) {
        let router = try makeRouter(limits: with { $0.maxOutboundInFlight = 1 })
        let page = HoldingChannel(holding: marker)
        router.connect(page.channel)
        return (router, page)
    }

    /// A channel whose evaluations take `delay` each and that counts how many run at once.
    final class SlowChannel: Sendable {
        let running = Mutex(0)
        let most = Mutex(0)
        let scripts = Mutex<[String]>([])
        let delay: Duration
        init(delay: Duration) { self.delay = delay }
        var channel: PageChannel {
            PageChannel { script in
                let now = self.running.withLock { running in
                    running += 1
                    return running
                }
                self.most.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: self.delay)
                self.scripts.withLock { $0.append(script) }
                self.running.withLock { $0 -= 1 }
            }
        }
    }

    @Test("progress from 64 parallel workers: at most the window's scripts at once, every value once")
    func parallelProgress() async throws {
        let burst = ClosureTask(name: "burst") { (_: NoOptions, context: CallContext) -> Int in
            await withTaskGroup(of: Int.self) { group in
                for index in 0..<64 {
                    group.addTask { (try? await context.progress(index)) == nil ? 0 : 1 }
                }
                return await group.reduce(0, +)
            }
        }
        let router = try makeRouter([burst], limits: with { $0.maxOutboundInFlight = 8 })
        let slow = SlowChannel(delay: .milliseconds(2))
        let page = InMemoryPage(router: router)
        router.connect(slow.channel)
        _ = page
        let reply = try await answers(to: #"{"v":1,"id":"b","task":"burst","options":{}}"#, on: router)
        #expect(reply.first??.contains(#""data":64"#) == true, "\(reply)")
        let values = slow.scripts.withLock { $0 }.filter { $0.contains(#""kind":"progress""#) }
        #expect(values.count == 64)
        #expect(slow.most.withLock { $0 } <= 8)
        #expect(slow.most.withLock { $0 } >= 2, "the window lets several go at once")
    }

    @Test("events from 200 Swift tasks at once: at most the window's scripts at once, every event once")
    func parallelEvents() async throws {
        let router = try makeRouter(limits: with { $0.maxOutboundInFlight = 4 })
        let slow = SlowChannel(delay: .milliseconds(2))
        router.connect(slow.channel)
        let sent = await withTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask { (try? await router.emit("tick", data: index)) == nil ? 0 : 1 }
            }
            return await group.reduce(0, +)
        }
        #expect(sent == 200)
        #expect(slow.scripts.withLock { $0.count } == 200)
        #expect(slow.most.withLock { $0 } <= 4)
    }

    @Test("with the window off (0), the same events all go at once")
    func windowOff() async throws {
        let router = try makeRouter(limits: with { $0.maxOutboundInFlight = 0 })
        let slow = SlowChannel(delay: .milliseconds(50))
        router.connect(slow.channel)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 { group.addTask { try? await router.emit("tick", data: index) } }
        }
        #expect(slow.most.withLock { $0 } > 4)
    }

    @Test(
        "events past the window while scripts wait for the document's notice: they wait too, and all go once it comes",
        .timeLimit(.minutes(1)))
    func pastTheWindowDuringTheDocumentWait() async throws {
        let (router, recording) = try DocumentWaitTests.betweenCommitAndNotice(
            limits: with { $0.maxOutboundInFlight = 4 })
        var senders: [Task<Void, any Error>] = []
        for index in 0..<12 {
            senders.append(Task { try await router.emit("e", data: index) })
            // One at a time, so that the order of asking is the order of the indexes.
            #expect(await eventually { router.heldScriptCount == min(index + 1, 4) })
            if index >= 4 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(router.heldScriptCount == 4, "the window's four wait for the notice; the others for a place")
        router.pageDidAnnounceDocument(DocumentWaitTests.documentB)
        for sender in senders { try await sender.value }
        let sent = recording.document.withLock { $0 }
        let order = sent.compactMap { script in (0..<12).first { script.contains("\"data\":\($0),") } }
        // Each event once. The held four drain in order, and the first of them goes before any
        // other (the others wait for a place a held sender gives back). A sender handed a place
        // meanwhile goes at once (``DocumentWait``: concurrent senders have no order between
        // them), so it may come before the rest of the held ones.
        #expect(order.count == 12 && order.sorted() == Array(0..<12), "\(order)")
        #expect(order.first == 0, "the first held script goes first: \(order)")
        #expect(order.filter { $0 < 4 } == [0, 1, 2, 3], "the held four go in order: \(order)")
    }

    @Test("close() lets the senders waiting for a place go: they find no page and throw unavailable")
    func closeReleasesWaiters() async throws {
        let router = try makeRouter(limits: with { $0.maxOutboundInFlight = 1 })
        let release = AsyncStream<Void>.makeStream()
        let started = Counter()
        router.connect(
            PageChannel { _ in
                started.increment()
                for await _ in release.stream { break }
            })
        let first = Task { try await router.emit("first") }
        #expect(await eventually { started.value == 1 })
        let second = Task { try await router.emit("second") }
        try await Task.sleep(for: .milliseconds(20))
        #expect(started.value == 1, "the second event waits for a place")
        await router.close()
        await #expect(throws: BridgeError.self) { try await second.value }
        #expect(started.value == 1)
        release.continuation.finish()
        _ = try? await first.value
        await #expect(throws: BridgeError.self) { try await router.emit("after") }
    }

    /// Attack 26, F1: an event read the page generation only once it had a place, so events the
    /// app emitted for document A, waiting behind a slow listener, reached document B.
    @Test("events waiting for a place when another document commits reach nobody; their emit throws unavailable")
    func waitingEventsStayWithTheirDocument() async throws {
        let (router, page) = try routerWithOnePlace(holding: "first")
        let first = Task { try await router.emit("first") }
        #expect(await eventually { page.count == 1 })
        var waiting: [Task<Void, any Error>] = []
        for index in 0..<3 {
            waiting.append(Task { try await router.emit("for-a", data: index) })
        }
        #expect(await eventually { router.outboundWaitingCount == 3 })
        router.pageDidCommitNavigation()
        page.release()
        try await first.value
        for sender in waiting {
            await #expect(throws: BridgeError.self) { try await sender.value }
        }
        let scripts = page.scripts.withLock { $0 }
        #expect(scripts.filter { $0.contains("for-a") }.isEmpty, "\(scripts)")
        try await router.emit("for-b")
        #expect(page.scripts.withLock { $0 }.last?.contains("for-b") == true)
    }

    /// Kind of fault: a sender waiting for a place ignored its Swift task's cancellation. An app
    /// that cancelled the task emitting an event (a screen going away) still had the event sent
    /// whenever a place came, and a cancelled call's progress held its worker until then.
    @Test(
        "a sender whose Swift task is cancelled while it waits for a place stops waiting, throws cancelled and sends nothing; the others keep their turn",
        .timeLimit(.minutes(1)))
    func cancelledWhileWaiting() async throws {
        let (router, page) = try routerWithOnePlace(holding: "first")
        let first = Task { try await router.emit("first") }
        #expect(await eventually { page.count == 1 })
        let cancelled = Task { try await router.emit("cancelled") }
        #expect(await eventually { router.outboundWaitingCount == 1 })
        let after = Task { try await router.emit("after") }
        #expect(await eventually { router.outboundWaitingCount == 2 })

        cancelled.cancel()
        // It stops waiting at once, while the first event still holds the only place.
        let outcome = Mutex<String?>(nil)
        Task {
            do { try await cancelled.value } catch let error as BridgeError { outcome.withLock { $0 = error.code } }
        }
        #expect(
            await eventually { outcome.withLock { $0 } == "cancelled" },
            "\(String(describing: outcome.withLock { $0 }))")
        #expect(router.outboundWaitingCount == 1, "only the event after it waits")

        page.release()
        try await first.value
        try await after.value
        let names = page.scripts.withLock { $0 }.map { script in
            ["first", "cancelled", "after"].first { script.contains("\"\($0)\"") } ?? script
        }
        #expect(names == ["first", "after"])
        try await router.emit("later")
        #expect(router.outboundWaitingCount == 0)
    }

    @Test(
        "a sender already cancelled that finds a place sends; one that must wait throws cancelled at once",
        .timeLimit(.minutes(1)))
    func cancelledBeforeAsking() async throws {
        let (router, page) = try routerWithOnePlace(holding: "hold")
        try await emitFromCancelledTask(router, "free").value
        #expect(page.count == 1, "a free place: the event goes")

        let holder = Task { try await router.emit("hold") }
        #expect(await eventually { page.count == 2 })
        let waiting = emitFromCancelledTask(router, "never")
        let error = await #expect(throws: BridgeError.self) { try await waiting.value }
        #expect(error?.code == "cancelled")
        #expect(router.outboundWaitingCount == 0)
        page.release()
        try await holder.value
        #expect(page.count == 2)
    }

    /// Emits `name` from a Swift task that is cancelled before it asks for a place.
    private func emitFromCancelledTask(_ router: BridgeRouter, _ name: String) -> Task<Void, any Error> {
        let gate = AsyncStream<Void>.makeStream()
        let sender = Task {
            for await _ in gate.stream { break }
            try await router.emit(name)
        }
        sender.cancel()
        gate.continuation.finish()
        return sender
    }

    private func with(_ change: (inout BridgeLimits) -> Void) -> BridgeLimits {
        var limits = BridgeLimits()
        change(&limits)
        return limits
    }
}
