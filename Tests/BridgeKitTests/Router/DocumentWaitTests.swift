import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// Kind of fault: a script sent between a commit and the new document's notice went unbound and
/// could reach a document that committed after it (SECURITY.md's former residual; GTK
/// LateDeliveryAttack caught one native-to-page call so). Such scripts now wait for the notice
/// (``DocumentWait``). The first design of that wait was attacked from outside (a helper's tests,
/// most of those below): scripts waiting together went out in random order, a final reply
/// waiting when the router closed was lost, and every script of a generation that never
/// announced itself waited the full second again.
@Suite("Router: scripts wait for their document's notice, in order")
struct DocumentWaitTests {
    static let documentA = String(repeating: "a1", count: 16)
    static let documentB = String(repeating: "b2", count: 16)

    /// A router whose host has announced a document and that has just committed another: the
    /// scripts it sends now wait for the next notice, at most `limit` after the commit (long by
    /// default: tests of order must not race the limit on a loaded machine).
    static func betweenCommitAndNotice(
        _ tasks: [any BridgeTask] = [], limit: Duration = .seconds(60), limits: BridgeLimits = BridgeLimits()
    ) throws -> (BridgeRouter, RecordingChannel) {
        let router = try makeRouter(tasks, limits: limits)
        let recording = RecordingChannel()
        router.connect(recording.channel)
        router.documentWaitLimit = limit
        router.pageDidAnnounceDocument(documentA)
        router.pageDidCommitNavigation()
        return (router, recording)
    }

    /// Finding 1: the wait is per script, not per generation. In a generation whose document
    /// does not announce itself (a web content process that ended, a detached bridge, a document
    /// where WebKit runs no user scripts), every script waits the whole second again: n events
    /// take n seconds; a task's n progress values take n seconds.
    @Test(
        "After one full wait in a generation, later scripts of that generation do not wait another second each",
        .timeLimit(.minutes(1)))
    func everyScriptWaitsAgain() async throws {
        // One second, as in an app; e.g. the web content process terminated.
        let (router, recording) = try Self.betweenCommitAndNotice(limit: .seconds(1))
        try await router.emit("status", data: 0)  // waits out the generation's limit (1 s)
        let clock = ContinuousClock()
        let start = clock.now
        for n in 1..<4 { try await router.emit("status", data: n) }
        let elapsed = clock.now - start
        #expect(recording.page.withLock { $0.count } == 4)
        #expect(elapsed < .seconds(1), "3 later events took \(elapsed)")
    }

    /// Finding 2: scripts that waited together resume together, in the order of a Dictionary's
    /// values (random per process) and on separate tasks: a native-to-page call and its cancel
    /// (the call timed out while it waited) reached the new document in either order. With the
    /// cancel first, the page ignored it (no such call yet), then ran the handler of a call that
    /// native had already reported to the app as timed out. Since attack 10 a call that settles
    /// while it waits is never sent, and so needs no cancel (``RouterState/handOver(_:)``).
    @Test(
        "A native-to-page call that times out while it waits for the notice reaches the document neither as a call nor as a cancel",
        .timeLimit(.minutes(2)))
    func callAndCancelOrder() async throws {
        for _ in 0..<40 {
            let (router, recording) = try Self.betweenCommitAndNotice()
            let traffic = TrafficLog(router)
            await #expect(throws: BridgeError.self) {
                _ = try await router.callPage("save", options: ["item": 1], timeout: .milliseconds(50))
            }
            #expect(await eventually { router.heldScriptCount >= 1 }, "the call waits")
            router.pageDidAnnounceDocument(Self.documentB)
            #expect(await eventually { traffic.all.contains { $0.direction == .outbound && $0.kind == .call } })
            let callRecord = traffic.all.first { $0.direction == .outbound && $0.kind == .call }
            #expect(callRecord?.reason == .notDelivered, "the timed-out call was sent")
            let scripts = recording.document.withLock { $0 } + recording.page.withLock { $0 }
            #expect(!scripts.contains { $0.contains("\"kind\":\"call\"") || $0.contains("\"kind\":\"cancel\"") })
            await router.close()
            #expect(!traffic.all.contains { $0.kind == .cancel }, "a cancel of a call never sent")
        }
    }

    /// Finding 2b: events the app emits in order from two tasks (the second started while the
    /// first waits) reach the document in either order.
    @Test(
        "Events emitted in order while waiting for the notice reach the document in that order",
        .timeLimit(.minutes(2)))
    func eventOrder() async throws {
        var reversed = 0
        let rounds = 12
        for _ in 0..<rounds {
            let (router, recording) = try Self.betweenCommitAndNotice()
            var tasks: [Task<Void, any Error>] = []
            for n in 0..<4 {
                tasks.append(Task { try await router.emit("step", data: n) })
                #expect(await eventually { router.heldScriptCount == n + 1 })
            }
            router.pageDidAnnounceDocument(Self.documentB)
            for task in tasks { try await task.value }
            let scripts = recording.document.withLock { $0 }
            let order = scripts.compactMap { script in (0..<4).first { script.contains("\"data\":\($0)") } }
            if order != [0, 1, 2, 3] { reversed += 1 }
            await router.close()
        }
        #expect(reversed == 0, "events reordered in \(reversed) of \(rounds) rounds")
    }

    /// Finding 3: a call's final reply that waits for the notice is lost when the router closes
    /// meanwhile: close() settles only *pending* calls (this one already settled), and the
    /// waiting reply then finds no channel. The page's call gets no final reply at all (before the
    /// wait it was evaluated at once). A call in a generation whose document is not named yet: a
    /// page restored from the back-forward cache calling before its pageshow notice, or a document
    /// that never announces itself.
    @Test("A final reply waiting for the notice still reaches the page when the router closes", .timeLimit(.minutes(1)))
    func replyLostOnClose() async throws {
        let router = try makeRouter([echoTask])
        let page = InMemoryPage(router: router)
        let recording = RecordingChannel()
        router.connect(recording.channel)
        router.documentWaitLimit = .seconds(60)
        router.pageDidAnnounceDocument(Self.documentA)
        router.pageDidCommitNavigation()
        let id = try #require(page.send("echo", options: ["n": 1]))
        #expect(await eventually { router.heldScriptCount == 1 }, "the final reply waits for the notice")
        await router.close()  // sends what waited before it returns
        let delivered = recording.page.withLock { $0 } + recording.document.withLock { $0 }
        #expect(
            delivered.contains { $0.contains("\"id\":\"\(id)\"") && $0.contains("\"kind\":\"reply\"") },
            "the call \(id) got no final reply: \(delivered)")
    }

    @Test(
        "close() sends every waiting script at once, in order, through the channel that was connected",
        .timeLimit(.minutes(1)))
    func closeSendsInOrder() async throws {
        // Room for all 50 on their way (``BridgeLimits/maxOutboundInFlight``): a sender past the
        // window waits before its script is made, and OutboundWindowTests covers that.
        var limits = BridgeLimits()
        limits.maxOutboundInFlight = 64
        let (router, recording) = try Self.betweenCommitAndNotice(limits: limits)
        var tasks: [Task<Void, any Error>] = []
        for n in 0..<50 {
            tasks.append(Task { try await router.emit("e", data: n) })
            #expect(await eventually { router.heldScriptCount == n + 1 })
        }
        await router.close()  // long before the 60 s limit: the close sent them
        for task in tasks { try await task.value }
        #expect(router.heldScriptCount == 0)
        let sent = recording.page.withLock { $0 }
        let order = sent.compactMap { script in (0..<50).first { script.contains("\"data\":\($0),") } }
        #expect(order == Array(0..<50), "\(sent.count) sent")
        #expect(recording.document.withLock { $0.isEmpty }, "no document was named: unbound")
    }

    @Test(
        "A script made between a commit and the new document's notice waits for the notice and is bound to that document; a commit meanwhile drops it; with no notice within the limit it goes unbound",
        .timeLimit(.minutes(1)))
    func waitsForTheNotice() async throws {
        let (router, recording) = try Self.betweenCommitAndNotice()
        async let early: Void = router.emit("early", data: 1)
        #expect(await eventually { router.heldScriptCount == 1 }, "the script waits for the notice")
        #expect(
            recording.page.withLock { $0.isEmpty } && recording.document.withLock { $0.isEmpty },
            "not before the notice")
        router.pageDidAnnounceDocument(Self.documentB)
        try await early
        let bound = recording.document.withLock { $0 }
        let toB = try #require(PageFunction.deliver(toDocument: Self.documentB))
        #expect(bound.count == 1 && bound.first?.hasPrefix(toB.source) == true, "\(bound)")

        // Another commit while a script waits: the script belonged to the replaced document.
        router.pageDidCommitNavigation()
        let dropped = Task { try await router.emit("dropped", data: 2) }
        #expect(await eventually { router.heldScriptCount == 1 })
        router.documentWaitLimit = .milliseconds(300)
        let clock = ContinuousClock()
        let beforeCommit = clock.now
        router.pageDidCommitNavigation()
        await #expect(throws: BridgeError.self) { try await dropped.value }
        #expect(router.heldScriptCount == 0)

        // A document that never announces itself: its scripts go unbound after the wait.
        try await router.emit("unannounced", data: 3)
        #expect(clock.now - beforeCommit >= .milliseconds(300), "not before the commit's deadline")
        #expect(recording.page.withLock { $0.count } == 1)
        #expect(recording.document.withLock { $0.count } == 1)
    }

    @Test(
        "A host that never announced a document, or a channel that cannot bind, holds nothing",
        .timeLimit(.minutes(1)))
    func noNoticeNoWait() async throws {
        let router = try makeRouter()
        let recording = RecordingChannel()
        router.connect(recording.channel)
        router.documentWaitLimit = .seconds(600)  // a script held by mistake fails the time limit
        router.pageDidCommitNavigation()
        try await router.emit("first", data: 1)
        #expect(recording.page.withLock { $0.count } == 1, "no notice yet: the host may not announce documents")

        router.pageDidAnnounceDocument(Self.documentA)
        router.connect(PageChannel(evaluate: { script in recording.page.withLock { $0.append(script) } }))
        router.pageDidCommitNavigation()
        try await router.emit("unbindable", data: 2)
        #expect(recording.page.withLock { $0.count } == 2)
    }
}
