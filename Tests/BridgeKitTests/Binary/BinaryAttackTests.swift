import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Attacks on the byte transport's policy, platform-neutral (the GTK end-to-end suite "Binary
/// values under attack" runs them in real WebKitGTK).
@Suite("Binary values: attacks on the byte transport")
struct BinaryAttackTests {
    /// An app that lets frames of every origin call: a frame of any origin may call, so its
    /// requests may wait, and the waiting budgets are what bounds them.
    static let everyOrigin = AccessPolicy.anyOrigin(allowsSubframes: true)

    /// A task that stays pending until its call ends (cancelled, closed): its origin has called.
    static let hold = ClosureTask(name: "Hold") { (_: NoOptions, _: CallContext) -> Int in
        try await Task.sleep(for: .seconds(3600))
        return 0
    }

    /// Sends a `Hold` call from a subframe of each of `origins`, and waits until all are pending:
    /// their origins have called, so their requests may wait for claims.
    static func holdCalls(_ page: InMemoryPage, from origins: [String]) async {
        for origin in origins {
            page.send("Hold", from: MessageSource(origin: SecurityOrigin(origin), isMainFrame: false))
        }
        _ = await eventually { page.router.pendingCountsForTesting.calls == origins.count }
    }

    /// `count` requests of `origin` with one byte each for made-up tokens, sent together.
    static func flood(
        _ transport: InMemoryBinaryTransport, _ requests: [(origin: String, count: Int)], answered: Counter
    )
        -> Task<[Int], Never>
    {
        Task {
            await withTaskGroup(of: Int.self) { group in
                for (origin, count) in requests {
                    for _ in 0..<count {
                        group.addTask {
                            let status = await transport.upload(
                                Data([1]), token: InMemoryBinaryTransport.placeholder(size: 1).token, origin: origin)
                            answered.increment()
                            return status
                        }
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
    }

    /// A task that asks something first (where to save, say) and claims the bytes later.
    static func saveLater(_ transfers: BinaryTransfers) -> some BridgeTask {
        ClosureTask(name: "SaveLater") { (options: BinaryTransfersTests.SaveOptions, context: CallContext) -> Int in
            try await Task.sleep(for: .milliseconds(300))
            return try await transfers.data(of: options.file, context: context).count
        }
    }

    /// Kind of fault: bodies the app's process holds for requests nobody can authenticate. A
    /// claim is made only by the task of a call the router admitted in the current document, for
    /// a token of that call's origin; yet requests of any origin for made-up tokens used to wait
    /// for one (`BinaryLimits.requestWait`), each holding its body: on WebKitGTK 2.50 a
    /// cross-origin frame's 16 bodies of 32 MiB grew the app's process by 563 MiB for 10 s. A
    /// request of an origin that called nothing in the document is now answered at once
    /// (`no_room`, so that the page's own request that came before its call is sent again).
    @Test(
        "a request of an origin that called nothing in the document never waits for a claim: 404 no_room at once, its body released",
        .timeLimit(.minutes(1)))
    func noCallNeverWaits() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(requestWait: 40, claimWait: 5))
        try page.router.register(Self.saveLater(transfers))
        let clock = ContinuousClock()
        let start = clock.now
        let bodies = (0..<8).map { _ in DataBodyReader(Data(count: 1000)) }
        let responses = await withTaskGroup(of: BinaryResponse.self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask {
                    await transfers.handle(
                        BinaryRequest(
                            method: "POST",
                            url: InMemoryBinaryTransport.url(InMemoryBinaryTransport.placeholder(size: 1000).token),
                            origin: index % 2 == 0 ? "https://evil.example" : appOrigin, body: body))
                }
            }
            return await group.reduce(into: [BinaryResponse]()) { $0.append($1) }
        }
        #expect(clock.now - start < .seconds(12), "answered at once, not after the 40 s request wait")
        #expect(responses.map(\.status) == Array(repeating: 404, count: 8))
        for response in responses {
            #expect(try await BinaryPartsTests.body(response) == ["code": "unknown_transfer", "reason": "no_room"])
        }
        #expect(bodies.allSatisfy { $0.isCancelled }, "each body is released")
        #expect(transfers.waitTimers == 0)
        // Once its call was admitted, the page's request waits for the task's claim.
        let data = BinaryTransfersTests.bytes(10)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        async let reply = page.call("SaveLater", options: ["name": "x", "file": placeholder])
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        async let status = transport.upload(data, token: token)
        #expect(await eventually { transfers.waitTimers == 1 }, "the page's request waits for the claim")
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: await reply, as: Int.self) == 10)
        #expect(records.list.map(\.outcome) == [.finished])
    }

    /// Kind of fault: a bounded record that others can fill. The router keeps at most 64 calling
    /// origins a document; frames of 64 other origins (the app lets them call) calling first must
    /// not leave the main frame's request unable to wait while its call is pending.
    @Test(
        "frames of 64 other origins calling first do not stop the main frame's request from waiting for its claim",
        .timeLimit(.minutes(1)))
    func callingOriginsFull() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(requestWait: 20, claimWait: 5), extra: [Self.hold], policy: Self.everyOrigin)
        try page.router.register(Self.saveLater(transfers))
        await Self.holdCalls(page, from: (0..<64).map { "https://f\($0).example" })
        let data = BinaryTransfersTests.bytes(10)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        async let reply = page.call("SaveLater", options: ["name": "x", "file": placeholder])
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 65 })
        // Sent once, after its call was admitted: it must wait for the claim, not be refused.
        async let status = transport.upload(data, token: token, body: DataBodyReader(data))
        #expect(await eventually { transfers.waitTimers == 1 }, "the main frame's request waits")
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: await reply, as: Int.self) == 10)
        #expect(records.list.map(\.outcome) == [.finished])
        await page.router.close()
    }

    /// Kind of fault: a shared budget that unauthenticated requests may use up (see the GTK test
    /// `waitingFloodFromOtherFrames`). Frames of other origins that called (the app lets them
    /// call) may wait, each origin in a budget of its own and all of them together at
    /// most ``BinaryTransfers/othersFactor`` times one; the main frame's requests still wait.
    @Test(
        "requests of other origins that called, or without an origin, waiting for tokens nobody claims, do not use up the main frame's waits",
        .timeLimit(.minutes(1)))
    func waitingFlood() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxWaitingRequests: 4, requestWait: 30, claimWait: 5), extra: [Self.hold],
            policy: Self.everyOrigin)
        try page.router.register(Self.saveLater(transfers))
        // Two origins over their budget, and more than the others may wait together (16).
        let many = (0..<20).map { "https://e\($0).example" }
        await Self.holdCalls(page, from: ["https://evil.example"] + many)
        let answered = Counter()
        let flood = Self.flood(
            transport, [("https://evil.example", 6), ("null", 6)] + many.map { ($0, 1) }, answered: answered)
        #expect(
            await eventually { answered.value == 32 - 16 },
            "the others wait at most 4 x 4 together; the opaque ones and the rest are refused at once")
        // The main frame's request arrives after its call was admitted (the shim posts the call first).
        let data = BinaryTransfersTests.bytes(100)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        let claimed = Task { await page.call("SaveLater", options: ["name": "x", "file": placeholder]) }
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 22 })
        async let status = transport.upload(data, token: token)
        let reply = await claimed.value
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: reply, as: Int.self) == 100)
        #expect(records.list.map(\.outcome) == [.finished])
        transport.transfers.close()
        let statuses = await flood.value
        #expect(statuses.count == 32)
        #expect(statuses.allSatisfy { $0 == 404 || $0 == 403 }, "\(statuses)")
        await page.router.close()
    }

    /// Kind of fault: a refusal the page cannot tell from a final one. The main frame's request
    /// that arrives before its call was admitted (WebKitGTK may deliver it first) cannot wait
    /// (its origin called nothing yet in the document, and here frames of other origins also fill
    /// the waits all of them share); it was answered `404 unknown_transfer`, like a token no task will
    /// ever claim: the shim then sent nothing more and the task waited `claimWait` for a body that
    /// never came. The answer says why (`reason` `no_room`), so the page sends the body again a
    /// moment later, when its call is admitted and its origin waits in the main frame's budget.
    @Test(
        "a request refused for want of room to wait says so (no_room); sent again once its call is admitted, it goes through",
        .timeLimit(.minutes(1)))
    func noRoomThenRetry() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxWaitingRequests: 1, requestWait: 30, claimWait: 5), extra: [Self.hold],
            policy: Self.everyOrigin)
        let others = (0..<4).map { "https://evil\($0).example" }
        await Self.holdCalls(page, from: others)
        let flood = Self.flood(transport, others.map { ($0, 1) }, answered: Counter())
        #expect(await eventually { transfers.waitTimers == 4 }, "the others' budget is full")
        let data = BinaryTransfersTests.bytes(100)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        let early = await transfers.handle(
            BinaryRequest(
                method: "POST", url: InMemoryBinaryTransport.url(token), origin: appOrigin,
                body: DataBodyReader(data)))
        let answer = try await BinaryPartsTests.body(early)
        #expect(early.status == 404)
        #expect(answer == ["code": "unknown_transfer", "reason": "no_room"], "\(answer)")
        async let reply = page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(await eventually { transfers.openTransfers == 1 }, "the call was admitted and claimed the token")
        #expect(await transport.upload(data, token: token) == 200, "sent again, it goes through")
        #expect(try InMemoryPage.result(of: await reply, as: BinaryTransfersTests.Saved.self).bytes == 100)
        #expect(records.list.map(\.outcome) == [.finished])
        transfers.close()
        #expect(await flood.value.allSatisfy { $0 == 404 })
        await page.router.close()
    }

    /// The waiting rule's refusals, pinned: a call the router refuses (a duplicate id, too many
    /// pending calls, over the memory budget, an unknown task, a task whose own policy refuses the
    /// origin), a fire-and-forget call and a synchronous task's call never let their origin's
    /// requests wait for a claim, even while the main frame has a call pending; nor does a call
    /// of an earlier document.
    @Test(
        "refused, fire-and-forget and synchronous calls, and an earlier document's calls, never let their origin's requests wait",
        .timeLimit(.minutes(1)))
    func refusedCallsNeverWait() async throws {
        let router = try makeRouter(
            [Self.hold, echoTask], limits: BridgeLimits(maxPendingCalls: 1, maxHeldBytes: 4000),
            policy: Self.everyOrigin)
        let transfers = BinaryTransfers(router: router, limits: BinaryLimits(requestWait: 30, claimWait: 5))
        try router.register(
            ClosureTask(name: "Private", policy: .origins([OriginPattern(appOrigin)], allowsSubframes: true)) {
                (_: NoOptions, _: CallContext) -> Int in 0
            })
        try router.register(SynchronousClosureTask(name: "Sync") { (_: NoOptions, _: CallContext) in 1 })
        let page = InMemoryPage(router: router)
        func frame(_ origin: String) -> MessageSource {
            MessageSource(origin: SecurityOrigin(origin), isMainFrame: false)
        }
        let mainID = try #require(page.send("Hold"))
        #expect(await eventually { router.pendingCountsForTesting.calls == 1 })
        let attackers = (0..<7).map { "https://d\($0).example" }
        page.send("Hold", id: mainID, from: frame(attackers[0]))
        page.send("Hold", from: frame(attackers[1]))
        page.send("echo", options: .string(String(repeating: "x", count: 8000)), from: frame(attackers[2]))
        page.send("NoSuchTask", from: frame(attackers[3]))
        page.send("Private", from: frame(attackers[4]))
        page.send("Hold", fireAndForget: true, from: frame(attackers[5]))
        page.send("Sync", from: frame(attackers[6]))
        try await Task.sleep(for: .milliseconds(200))
        #expect(router.pendingCountsForTesting.calls == 1, "only the main frame's call is pending")
        func oneShot(_ origin: String) async throws -> (Int, JSONValue) {
            let response = await transfers.handle(
                BinaryRequest(
                    method: "POST",
                    url: InMemoryBinaryTransport.url(InMemoryBinaryTransport.placeholder(size: 10).token),
                    origin: origin, body: DataBodyReader(Data(count: 10))))
            return (response.status, try await BinaryPartsTests.body(response))
        }
        for origin in attackers {
            let (status, answer) = try await oneShot(origin)
            #expect(
                status == 404 && answer == ["code": "unknown_transfer", "reason": "no_room"], "\(origin): \(answer)")
        }
        // An earlier document's calling origin does not carry over.
        page.navigate()
        let (status, answer) = try await oneShot(appOrigin)
        #expect(status == 404 && answer == ["code": "unknown_transfer", "reason": "no_room"], "\(answer)")
        #expect(transfers.waitTimers == 0, "no request waited")
        await router.close()
    }

    /// Kind of fault: a lifetime that is only enforced when traffic arrives. An offer lives
    /// ``BinaryLimits/offerLifetime`` unfetched, but expired offers were only swept when another
    /// byte request came or a document committed: a page that got a reply with bytes and never
    /// fetched them (an aborted call whose reply the shim dropped, a page that stopped) kept
    /// them held for as long as it stayed, and once ``BinaryLimits/maxHeldBytes`` was spent every
    /// later `send` failed `memory_budget_exceeded`.
    @Test(
        "an offer the page never fetches ends when its lifetime passes, with no other request: its bytes are released and later offers fit",
        .timeLimit(.minutes(1)))
    func unfetchedOfferExpires() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxHeldBytes: 1000, requestWait: 30, claimWait: 30, offerLifetime: 0.3))
        let first = await page.call("Make", options: 800)
        let token = try #require(first["data"]?["file"]?[BridgeBinary.placeholderKey]?.string("token"))
        #expect(transfers.heldBytes == 800)
        #expect(await eventually { transfers.heldBytes == 0 }, "released without any request")
        #expect(records.list.map(\.outcome) == [.cancelled])
        let second = await page.call("Make", options: 800)
        #expect(second["ok"] == true, "\(second)")
        #expect(await transport.download(token).status == 404, "the expired offer is gone")
        #expect(await eventually { transfers.heldBytes == 0 }, "the next offer expires too (the timer is set again)")
        #expect(records.list.map(\.outcome) == [.cancelled, .cancelled])
    }
}
