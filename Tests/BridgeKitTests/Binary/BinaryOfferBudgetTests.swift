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
