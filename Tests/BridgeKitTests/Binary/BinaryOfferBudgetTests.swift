import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Downloads from chunk streams count against the held-bytes budget too
/// (``BinaryLimits/maxHeldBytes``), one chunk each, so a page cannot make the app keep any
/// number of sources open (a file handle each, for `File.open`) until their offers expire.
@Suite("Binary values: the budget of stream downloads")
struct BinaryOfferBudgetTests {
    /// Makes the sources: 10 bytes each.
    final class Sources: Sendable {
        let transfers = Mutex<BinaryTransfers?>(nil)

        func stream() -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data(repeating: 1, count: 10))
                continuation.finish()
            }
        }
    }

    /// Kind of fault: only `Data` offers counted against `maxHeldBytes`; a `send(chunks:)` offer
    /// counted nothing, so a page that called a streaming task again and again (each call settles
    /// at once with its placeholder) without reading made the app hold any number of sources,
    /// each until its offer's lifetime ended.
    @Test(
        "unread stream offers are bounded by maxHeldBytes (one chunk each); a read one gives its room back",
        .timeLimit(.minutes(1)))
    func streamOffersBounded() async throws {
        let sources = Sources()
        let task = ClosureTask(name: "Open") { (_: JSONValue, context: CallContext) -> BridgeBinary in
            guard let transfers = sources.transfers.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return try await transfers.send(chunks: sources.stream(), size: 10, context: context)
        }
        let (page, transfers, transport, _) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(chunkBytes: 1000, maxHeldBytes: 10_000, requestWait: 30, claimWait: 30),
            extra: [task])
        sources.transfers.withLock { $0 = transfers }
        var tokens: [String] = []
        for _ in 0..<10 {
            let reply = await page.call("Open")
            tokens.append(try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"), "\(reply)"))
        }
        #expect(transfers.heldBytes == 10_000, "one chunk each")
        let over = await page.call("Open")
        #expect(over["error"]?.string("code") == "memory_budget_exceeded", "\(over)")
        #expect(transfers.openTransfers == 10)
        let (status, body) = await transport.download(tokens[0])
        #expect(status == 200 && body.count == 10)
        #expect(transfers.heldBytes == 9_000)
        let again = await page.call("Open")
        #expect(again["data"]?[BridgeBinary.placeholderKey]?.string("token") != nil, "\(again)")
    }
}

/// Offers are bounded in number too (``BinaryLimits/maxOffers``), and what ends the ones that are
/// due (``BinaryTransfers`` sweeping for ended documents and lifetimes) does not pass over every
/// open transfer on each request and offer. Found by a page calling a task that offers empty
/// `Data` (which counts nothing against ``BinaryLimits/maxHeldBytes``) in a loop without reading:
/// 12,000 offers stayed open, and each `send` and each byte request took time proportional to them
/// (94 µs with 200 open, 5.7 ms with 10,800).
@Suite("Binary values: the number of offers")
struct BinaryOfferCountTests {
    static func fixture(limits: BinaryLimits) throws -> (InMemoryPage, BinaryTransfers, InMemoryBinaryTransport) {
        let box = Mutex<BinaryTransfers?>(nil)
        let empty = ClosureTask(name: "Empty") { (_: JSONValue, context: CallContext) -> BridgeBinary in
            guard let transfers = box.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return try await transfers.send(Data(), context: context)
        }
        let (page, transfers, transport, _) = try BinaryTransfersTests.fixture(limits: limits, extra: [empty])
        box.withLock { $0 = transfers }
        return (page, transfers, transport)
    }

    @Test(
        "empty offers the page never reads stop at maxOffers (4096 by default): memory_budget_exceeded; a read one gives its room back",
        .timeLimit(.minutes(1)))
    func emptyOffersBounded() async throws {
        let limits = BinaryLimits(requestWait: 30, claimWait: 30)
        let (page, transfers, transport) = try Self.fixture(limits: limits)
        var first: String?
        for _ in 0..<limits.maxOffers {
            let reply = await page.call("Empty")
            let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"), "\(reply)")
            first = first ?? token
        }
        #expect(transfers.openTransfers == limits.maxOffers)
        #expect(transfers.heldBytes == 0, "empty offers hold no bytes")
        let over = await page.call("Empty")
        #expect(over["error"]?.string("code") == "memory_budget_exceeded", "\(over)")
        #expect(over["error"]?["details"]?["limit"] == .int(Int64(limits.maxOffers)))
        #expect(transfers.openTransfers == limits.maxOffers)
        let (status, _) = await transport.download(try #require(first))
        #expect(status == 200)
        #expect(await eventually { transfers.openTransfers == limits.maxOffers - 1 })
        let again = await page.call("Empty")
        #expect(again["data"]?[BridgeBinary.placeholderKey]?.string("token") != nil, "\(again)")
    }

    @Test(
        "offers and byte requests do not pass over every open transfer: full sweeps follow documents and lifetimes, not traffic",
        .timeLimit(.minutes(1)))
    func sweepsDoNotFollowTraffic() async throws {
        let (page, transfers, transport) = try Self.fixture(limits: BinaryLimits(requestWait: 30, claimWait: 30))
        for _ in 0..<500 {
            _ = await page.call("Empty")
        }
        for _ in 0..<500 {
            let (status, _) = await transport.download(String(repeating: "ab", count: 16))
            #expect(status == 404)
        }
        #expect(transfers.openTransfers == 500)
        // One pass when the first offer found no earlier pass of this document; none since.
        #expect(transfers.fullSweeps <= 2, "\(transfers.fullSweeps) passes over every transfer for 1,000 operations")
        // A new document: the next operation passes over everything once and ends the old offers.
        page.navigate()
        transfers.pageDidCommitNavigation()
        #expect(transfers.openTransfers == 0)
        #expect(transfers.fullSweeps <= 3)
    }
}
