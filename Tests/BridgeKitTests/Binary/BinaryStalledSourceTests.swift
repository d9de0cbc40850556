import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// A download whose native source stalls (a `send(chunks:)` stream that yields once, then waits):
/// the page going away or ``BinaryTransfers/close()`` must end the read waiting for the next
/// chunk and cancel the source at once, not when (if ever) the source yields again.
@Suite("Binary values: downloads whose source stalls")
struct BinaryStalledSourceTests {
    /// What the stalled source saw: its termination, once.
    final class Source: Sendable {
        let terminations = Mutex<[String]>([])
        /// The transfers the task offers it through.
        let transfers = Mutex<BinaryTransfers?>(nil)
        var list: [String] { terminations.withLock { $0 } }

        /// A stream that yields 1,000 bytes, then never yields or finishes by itself.
        func stream() -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream<Data, any Error> { continuation in
                continuation.onTermination = { termination in
                    let name: String
                    switch termination {
                    case .cancelled: name = "cancelled"
                    case .finished: name = "finished"
                    @unknown default: name = "unknown"
                    }
                    self.terminations.withLock { $0.append(name) }
                }
                continuation.yield(Data(repeating: 3, count: 1000))
            }
        }
    }

    /// Records how a read that started ended.
    final class ReadEnd: Sendable {
        let code = Mutex<String?>(nil)
        var value: String? { code.withLock { $0 } }
    }

    /// Offers a stalled stream, takes it with a `GET`, reads its first chunk and starts the read
    /// of the next one (which waits for the source).
    static func stalledRead() async throws -> (
        BinaryTransfers, BinaryResponse, Source, ReadEnd, BinaryTransfersTests.Records
    ) {
        let source = Source()
        let task = ClosureTask(name: "Stall") { (_: JSONValue, context: CallContext) -> BridgeBinary in
            guard let transfers = source.transfers.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return try await transfers.send(chunks: source.stream(), size: 5000, context: context)
        }
        let (page, transfers, _, records) = try BinaryTransfersTests.fixture(extra: [task])
        source.transfers.withLock { $0 = transfers }
        let reply = await page.call("Stall")
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let response = await transfers.handle(
            BinaryRequest(method: "GET", url: InMemoryBinaryTransport.url(token), origin: appOrigin))
        #expect(response.status == 200)
        #expect(try await response.body.read(maxBytes: 64 * 1024)?.count == 1000)
        let end = ReadEnd()
        let body = response.body
        Task.detached {
            do {
                let chunk = try await body.read(maxBytes: 64 * 1024)
                end.code.withLock { $0 = chunk == nil ? "end" : "chunk" }
            } catch {
                end.code.withLock { $0 = (error as? BridgeError)?.code ?? "other" }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(end.value == nil, "the read waits for the source")
        return (transfers, response, source, end, records)
    }

    @Test(
        "the page goes away (its body is cancelled) while the read waits for a stalled source: the read ends and the source is cancelled at once",
        .timeLimit(.minutes(1)))
    func cancelWhileStalled() async throws {
        let (_, response, source, end, records) = try await Self.stalledRead()
        let start = ContinuousClock.now
        response.body.cancel()
        try #require(await eventually { end.value != nil }, "the waiting read ended")
        #expect(ContinuousClock.now - start < .seconds(12), "at once, not when the source yields")
        #expect(end.value == "cancelled")
        #expect(await eventually { source.list.count == 1 })
        #expect(source.list == ["cancelled"], "the source was cancelled, once")
        #expect(records.list.map(\.outcome) == [.cancelled])
    }

    @Test(
        "close() while the read waits for a stalled source: the read fails unavailable and the source is cancelled at once",
        .timeLimit(.minutes(1)))
    func closeWhileStalled() async throws {
        let (transfers, _, source, end, records) = try await Self.stalledRead()
        let start = ContinuousClock.now
        transfers.close()
        try #require(await eventually { end.value != nil }, "the waiting read ended")
        #expect(ContinuousClock.now - start < .seconds(12), "at once, not when the source yields")
        #expect(end.value == "unavailable")
        #expect(await eventually { source.list.count == 1 })
        #expect(source.list == ["cancelled"], "the source was cancelled, once")
        #expect(records.list.map(\.outcome) == [.cancelled])
    }
}
