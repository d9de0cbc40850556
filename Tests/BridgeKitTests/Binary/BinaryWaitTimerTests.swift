import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Every wait of the byte transport (a page request waiting for its claim, a task waiting for the
/// page's next part) has a timer that ends with the wait, not at its deadline (issue 26): with many
/// uploads no sleepers pile up. The waits here are far longer than the tests, so a timer that
/// only ends at its deadline is still counted when they look.
@Suite("Binary values: wait timers end with their waits")
struct BinaryWaitTimerTests {
    typealias Fixture = BinaryTransfersTests

    static let limits = BinaryLimits(maxWaitingRequests: 64, requestWait: 50, claimWait: 50)

    /// Polls until `transfers` has no wait timer, for at most 5 s (well under the waits).
    static func timersEnd(_ transfers: BinaryTransfers) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while transfers.waitTimers > 0, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return transfers.waitTimers == 0
    }

    @Test(
        "40 uploads in parts whose requests came before their claims: every claim wait and part wait ends its timer",
        .timeLimit(.minutes(1)))
    func manyUploads() async throws {
        let (page, transfers, _, records) = try Fixture.fixture(limits: Self.limits)
        let data = Fixture.bytes(12)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 12)
                group.addTask {
                    // The first part goes before the call, so it waits for the claim.
                    async let first = BinaryPartsTests.handle(
                        transfers, BinaryPartsTests.request(token, offset: 0, data.prefix(4)))
                    try await Task.sleep(for: .milliseconds(20))
                    async let reply = page.call("Save", options: ["name": .string("\(index)"), "file": placeholder])
                    #expect(await first.status == 200)
                    for offset in [4, 8] {
                        let part = Data(data[offset..<(offset + 4)])
                        #expect(
                            await BinaryPartsTests.handle(
                                transfers, BinaryPartsTests.request(token, offset: offset, part)
                            ).status == 200)
                    }
                    #expect(await reply["ok"] == true)
                }
            }
            try await group.waitForAll()
        }
        #expect(records.list.count == 40)
        #expect(try await Self.timersEnd(transfers), "\(transfers.waitTimers) wait timers still sleep")
    }

    @Test(
        "a request waiting for a claim has a timer while it waits; the claim, or the close, ends it",
        .timeLimit(.minutes(1)))
    func timerWhileWaiting() async throws {
        let (page, transfers, _, _) = try Fixture.fixture(limits: Self.limits, extra: [BinaryAttackTests.hold])
        try page.router.register(BinaryAttackTests.saveLater(transfers))
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 3)
        // A request waits while its call is pending and its task has not claimed the token yet.
        async let reply = page.call("SaveLater", options: ["name": "a", "file": placeholder])
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        async let first = BinaryPartsTests.handle(
            transfers, BinaryPartsTests.request(token, offset: nil, Data([1, 2, 3])))
        #expect(await eventually { transfers.waitTimers == 1 }, "the waiting request's timer")
        #expect(await reply["ok"] == true)
        #expect(await first.status == 200)
        #expect(try await Self.timersEnd(transfers))

        // A request for a token nobody claims (a call of its origin is pending), then the web view closes.
        page.send("Hold")
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        async let orphan = transfers.handle(
            BinaryPartsTests.request(InMemoryBinaryTransport.placeholder(size: 1).token, offset: nil, Data([1])))
        #expect(await eventually { transfers.waitTimers == 1 })
        transfers.close()
        #expect(await orphan.status == 404)
        #expect(try await Self.timersEnd(transfers))
    }
}
