import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Attacks on the byte transport's policy, platform-neutral (the GTK end-to-end suite "Binary
/// values under attack" runs them in real WebKitGTK).
@Suite("Binary values: attacks on the byte transport")
struct BinaryAttackTests {
    /// Kind of fault: a shared budget that unauthenticated requests may use up (see the GTK test
    /// `waitingFloodFromOtherFrames`).
    @Test(
        "requests of another origin or without one, waiting for tokens nobody claims, do not use up the main frame's waits",
        .timeLimit(.minutes(1)))
    func waitingFlood() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxWaitingRequests: 4, requestWait: 30, claimWait: 5))
        // A task that asks something first (where to save, say) and claims the bytes later.
        try page.router.register(
            ClosureTask(name: "SaveLater") { (options: BinaryTransfersTests.SaveOptions, context: CallContext) -> Int in
                try await Task.sleep(for: .milliseconds(300))
                return try await transfers.data(of: options.file, context: context).count
            })
        // Other origins' frames and an opaque one fill what used to be the one budget.
        let answered = Counter()
        let flood = Task {
            await withTaskGroup(of: Int.self) { group in
                // Two origins over their budget, and more than the others may wait together (16).
                let many = (0..<20).map { ("https://e\($0).example", 1) }
                for (origin, count) in [("https://evil.example", 6), ("null", 6)] + many {
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
        #expect(
            await eventually { answered.value == 32 - 16 },
            "the others wait at most 4 x 4 together; the opaque ones and the rest are refused at once")
        // The main frame's request arrives after its call was admitted (the shim posts the call first).
        let data = BinaryTransfersTests.bytes(100)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        let claimed = Task { await page.call("SaveLater", options: ["name": "x", "file": placeholder]) }
        try await Task.sleep(for: .milliseconds(50))
        async let status = transport.upload(data, token: token)
        let reply = await claimed.value
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: reply, as: Int.self) == 100)
        #expect(records.list.map(\.outcome) == [.finished])
        transport.transfers.close()
        let statuses = await flood.value
        #expect(statuses.count == 32)
        #expect(statuses.allSatisfy { $0 == 404 || $0 == 403 }, "\(statuses)")
    }

    /// The same fault when the page's request comes before the router admitted its call (the
    /// engine may deliver the byte request first): it still waits, in its origin's budget.
    @Test(
        "the main frame's request that arrives before its call was admitted still waits while another origin floods",
        .timeLimit(.minutes(1)))
    func waitingFloodBeforeAdmission() async throws {
        let (page, _, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxWaitingRequests: 4, requestWait: 30, claimWait: 5))
        let flood = Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        await transport.upload(
                            Data([1]), token: InMemoryBinaryTransport.placeholder(size: 1).token,
                            origin: "https://evil.example")
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let data = BinaryTransfersTests.bytes(100)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        async let status = transport.upload(data, token: token)
        try await Task.sleep(for: .milliseconds(100))
        let reply = await page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: reply, as: BinaryTransfersTests.Saved.self).bytes == 100)
        #expect(records.list.map(\.outcome) == [.finished])
        transport.transfers.close()
        #expect(await flood.value.allSatisfy { $0 == 404 })
    }

    /// Kind of fault: a refusal the page cannot tell from a final one. When frames of other
    /// origins fill the budget all of them share, the main frame's request that arrives before
    /// its call was admitted (WebKitGTK may deliver it first) cannot wait and was answered
    /// `404 unknown_transfer`, like a token no task will ever claim: the shim then sent nothing
    /// more and the task waited `claimWait` for a body that never came. Now the answer says why
    /// (`reason` `no_room`), so the page sends the body again a moment later, when its call is
    /// admitted and its origin waits in the main frame's budget.
    @Test(
        "a request refused for want of room to wait says so (no_room); sent again once its call is admitted, it goes through",
        .timeLimit(.minutes(1)))
    func noRoomThenRetry() async throws {
        let (page, transfers, transport, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(maxWaitingRequests: 1, requestWait: 30, claimWait: 5))
        let flood = Task {
            await withTaskGroup(of: Int.self) { group in
                for origin in (0..<4).map({ "https://evil\($0).example" }) {
                    group.addTask {
                        await transport.upload(
                            Data([1]), token: InMemoryBinaryTransport.placeholder(size: 1).token, origin: origin)
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
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
