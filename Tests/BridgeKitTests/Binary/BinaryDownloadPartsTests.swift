import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Downloads the page reads in parts (`GET …?offset=<n>`, docs/protocol.md "Download in parts"):
/// each part is at most ``BinaryLimits/partBytes``, asked for in order and one at a time, so the
/// app holds one part of a stream; refusals leave the download alone; a cancelled part, the
/// document's end or a page that stops asking ends it once.
@Suite("Binary values: downloads in parts")
struct BinaryDownloadPartsTests {
    /// A `send(chunks:)` source of `count` bytes (byte i is `i % 251`) in chunks of `chunk`
    /// bytes, made as they are read, recording how its stream terminated and how far it was read.
    final class Source: Sendable {
        let terminations = Mutex<[String]>([])
        let made = Mutex(0)
        let transfers = Mutex<BinaryTransfers?>(nil)
        var list: [String] { terminations.withLock { $0 } }

        func stream(count: Int, chunk: Int) -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream<Data, any Error>(unfolding: {
                let range = self.made.withLock { made -> Range<Int>? in
                    guard made < count else { return nil }
                    let end = min(count, made + chunk)
                    defer { made = end }
                    return made..<end
                }
                guard let range else { return nil }
                return Data(range.map { UInt8($0 % 251) })
            })
        }
    }

    /// A page with a `Stream` task offering `count` bytes (declared `size`, `nil` for none) in
    /// chunks of `chunk` bytes; returns the token of its reply's placeholder. Keep the page alive
    /// while the test reads: it owns the router, whose end ends every transfer.
    static func offered(
        count: Int, size: Int?, chunk: Int = 16 << 10,
        limits: BinaryLimits = BinaryLimits(chunkBytes: 64 << 10, requestWait: 30, claimWait: 30)
    ) async throws -> (InMemoryPage, BinaryTransfers, String, BinaryTransfersTests.Records, Source) {
        let source = Source()
        let task = ClosureTask(name: "Stream") { (_: JSONValue, context: CallContext) -> BridgeBinary in
            guard let transfers = source.transfers.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return try await transfers.send(
                chunks: source.stream(count: count, chunk: chunk), size: size, context: context)
        }
        let (page, transfers, _, records) = try BinaryTransfersTests.fixture(limits: limits, extra: [task])
        source.transfers.withLock { $0 = transfers }
        let reply = await page.call("Stream")
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        return (page, transfers, token, records, source)
    }

    static func get(_ transfers: BinaryTransfers, _ token: String, offset: Int?, origin: String = appOrigin) async
        -> BinaryResponse
    {
        await transfers.handle(
            BinaryRequest(method: "GET", url: InMemoryBinaryTransport.url(token, offset: offset), origin: origin))
    }

    /// Reads a body to its end.
    static func readAll(_ body: any BinaryBodyReader) async throws -> Data {
        var data = Data()
        while let chunk = try await body.read(maxBytes: 1 << 20) { data.append(chunk) }
        return data
    }

    static func code(_ response: BinaryResponse) async throws -> String? {
        let text = try await readAll(response.body)
        return try BridgeJSON.decode(JSONValue.self, from: text).string("code")
    }

    @Test(
        "each part at the next offset brings at most partBytes, the source is read only as the parts are; the download finishes once with every byte",
        .timeLimit(.minutes(1)))
    func partsInOrder() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, source) = try await Self.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        #expect(transfers.limits.partBytes == 64 << 10)
        var received = Data()
        var offsets: [Int] = []
        while received.count < count, offsets.count < 8 {
            offsets.append(received.count)
            let part = await Self.get(transfers, token, offset: received.count)
            try #require(part.status == 200)
            #expect(part.contentLength == min(64 << 10, count - received.count))
            #expect(part.headers["Content-Length"] == part.contentLength.map(String.init))
            let bytes = try await Self.readAll(part.body)
            #expect(bytes.count == part.contentLength)
            received.append(bytes)
            if received.count < count {
                #expect(source.made.withLock { $0 } <= received.count + (16 << 10), "no more than a chunk read ahead")
                #expect(records.list.isEmpty, "the download waits for its next part")
            }
        }
        #expect(offsets == [0, 65536, 131072, 196608])
        #expect(received == Data((0..<count).map { UInt8($0 % 251) }))
        #expect(records.list.map(\.outcome) == [.finished])
        #expect(records.list.first?.bytes == count)
        #expect(await Self.get(transfers, token, offset: count).status == 404, "a finished download is gone")
        #expect(transfers.openTransfers == 0)
        #expect(transfers.heldBytes == 0)
    }

    @Test(
        "refused part requests leave the download alone: another origin (403), an offset out of order, a part while one is read, a whole GET after parts (409)",
        .timeLimit(.minutes(1)))
    func refusalsLeaveItAlone() async throws {
        let count = 100 << 10
        let (page, transfers, token, records, _) = try await Self.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        #expect(await Self.get(transfers, token, offset: 0, origin: "https://evil.example").status == 403)
        #expect(await Self.get(transfers, token, offset: 5).status == 409, "the first part starts at 0")
        let first = await Self.get(transfers, token, offset: 0)
        #expect(first.status == 200)
        let open = await Self.get(transfers, token, offset: 64 << 10)
        #expect(open.status == 409, "one part at a time")
        #expect(try await Self.code(open) == "invalid_options")
        var received = try await Self.readAll(first.body)
        let again = await Self.get(transfers, token, offset: 0)
        #expect(again.status == 409, "each offset once")
        #expect(try await Self.code(again) == "invalid_options")
        let whole = await Self.get(transfers, token, offset: nil)
        #expect(whole.status == 409)
        #expect(try await Self.code(whole) == "already_used")
        #expect(await Self.get(transfers, token, offset: 64 << 10, origin: "https://evil.example").status == 403)
        let last = await Self.get(transfers, token, offset: received.count)
        #expect(last.status == 200)
        received.append(try await Self.readAll(last.body))
        #expect(received.count == count)
        #expect(records.list.map(\.outcome) == [.finished])
    }

    @Test(
        "a download taken whole cannot be read in parts, and one of unknown size cannot either (409)",
        .timeLimit(.minutes(1)))
    func partsNeedASizeAndTheFirstRequest() async throws {
        let (page, transfers, token, _, _) = try await Self.offered(count: 1000, size: 1000)
        defer { withExtendedLifetime(page) {} }
        let whole = await Self.get(transfers, token, offset: nil)
        #expect(whole.status == 200)
        let part = await Self.get(transfers, token, offset: 0)
        #expect(part.status == 409)
        #expect(try await Self.code(part) == "already_used")
        #expect(try await Self.readAll(whole.body).count == 1000)

        let (unsizedPage, unsized, other, records, _) = try await Self.offered(count: 1000, size: nil)
        defer { withExtendedLifetime(unsizedPage) {} }
        let refused = await Self.get(unsized, other, offset: 0)
        #expect(refused.status == 409)
        #expect(try await Self.code(refused) == "invalid_options")
        let taken = await Self.get(unsized, other, offset: nil)
        #expect(try await Self.readAll(taken.body).count == 1000, "the refusal left it for a whole GET")
        #expect(records.list.map(\.outcome) == [.finished])
    }

    @Test(
        "a part cancelled mid-read (the page aborted) ends the whole download once, cancelled",
        .timeLimit(.minutes(1)))
    func cancelledPartEndsIt() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await Self.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let first = await Self.get(transfers, token, offset: 0)
        _ = try await Self.readAll(first.body)
        let second = await Self.get(transfers, token, offset: 64 << 10)
        #expect(try await second.body.read(maxBytes: 1024)?.count == 1024)
        second.body.cancel()
        #expect(records.list.map(\.outcome) == [.cancelled])
        await #expect(throws: BridgeError.self) { try await second.body.read(maxBytes: 1024) }
        #expect(await Self.get(transfers, token, offset: 64 << 10).status == 404)
        #expect(transfers.openTransfers == 0)
        #expect(transfers.heldBytes == 0)
    }

    @Test(
        "between two parts the document's end ends the download (cancelled, the parts' bytes counted), and so does a page that stops asking (offerLifetime)",
        .timeLimit(.minutes(1)))
    func idleBetweenParts() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await Self.offered(count: count, size: count)
        let first = await Self.get(transfers, token, offset: 0)
        _ = try await Self.readAll(first.body)
        page.navigate()
        transfers.pageDidCommitNavigation()
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(records.list.first?.bytes == 64 << 10)
        #expect(transfers.openTransfers == 0)

        let limits = BinaryLimits(chunkBytes: 64 << 10, requestWait: 30, claimWait: 30, offerLifetime: 0.3)
        let (quietPage, quiet, other, quietRecords, _) = try await Self.offered(
            count: count, size: count, limits: limits)
        defer { withExtendedLifetime(quietPage) {} }
        let part = await Self.get(quiet, other, offset: 0)
        _ = try await Self.readAll(part.body)
        try await Task.sleep(for: .milliseconds(150))
        #expect(quietRecords.list.isEmpty, "the lifetime counts from the end of the last part")
        #expect(await eventually { quietRecords.list.map(\.outcome) == [.cancelled] })
        #expect(await Self.get(quiet, other, offset: 64 << 10).status == 404)
        #expect(quiet.heldBytes == 0)
    }

    @Test(
        "a source shorter than its size fails the last part (invalid_result); a longer one fails it too (payload_too_large); each once",
        .timeLimit(.minutes(1)))
    func sourceSizeChecked() async throws {
        for (made, expected) in [(100 << 10, "invalid_result"), (140 << 10, "payload_too_large")] {
            let size = 120 << 10
            let (page, transfers, token, records, _) = try await Self.offered(count: made, size: size)
            defer { withExtendedLifetime(page) {} }
            let first = await Self.get(transfers, token, offset: 0)
            _ = try await Self.readAll(first.body)
            let last = await Self.get(transfers, token, offset: 64 << 10)
            #expect(last.contentLength == size - (64 << 10))
            await #expect(throws: BridgeError.self, "\(expected)") { try await Self.readAll(last.body) }
            #expect(records.list.map(\.outcome) == [.failed(expected)])
        }
    }

    @Test("a Data download reads in parts as well, byte for byte", .timeLimit(.minutes(1)))
    func dataInParts() async throws {
        let (page, transfers, _, records) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(chunkBytes: 64 << 10, requestWait: 30, claimWait: 30))
        let reply = await page.call("Make", options: 150_000)
        let token = try #require(reply["data"]?["file"]?[BridgeBinary.placeholderKey]?.string("token"))
        var received = Data()
        for _ in 0..<8 where received.count < 150_000 {
            let part = await Self.get(transfers, token, offset: received.count)
            try #require(part.status == 200)
            received.append(try await Self.readAll(part.body))
        }
        #expect(received == Data((0..<150_000).map { UInt8($0 % 251) }))
        #expect(records.list.map(\.outcome) == [.finished])
    }

    static func cancel(_ transfers: BinaryTransfers, _ token: String, origin: String = appOrigin) async
        -> BinaryResponse
    {
        await transfers.handle(
            BinaryRequest(method: "GET", url: InMemoryBinaryTransport.url(token) + "?cancel", origin: origin))
    }

    @Test(
        "the page's ?cancel ends a download between two parts, mid-part or unread, once, cancelled; another origin's is refused (403); one read whole is ended by its abort instead (409)",
        .timeLimit(.minutes(1)))
    func pageCancels() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await Self.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let first = await Self.get(transfers, token, offset: 0)
        _ = try await Self.readAll(first.body)
        #expect(await Self.cancel(transfers, token, origin: "https://evil.example").status == 403)
        #expect(records.list.isEmpty)
        let told = await Self.cancel(transfers, token)
        #expect(told.status == 200)
        #expect(try await Self.code(told) == "cancelled")
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(records.list.first?.bytes == 64 << 10)
        #expect(await Self.cancel(transfers, token).status == 404, "once")
        #expect(await Self.get(transfers, token, offset: 64 << 10).status == 404)

        let (midPage, mid, midToken, midRecords, _) = try await Self.offered(count: count, size: count)
        defer { withExtendedLifetime(midPage) {} }
        let part = await Self.get(mid, midToken, offset: 0)
        #expect(try await part.body.read(maxBytes: 1024)?.count == 1024)
        #expect(await Self.cancel(mid, midToken).status == 200)
        #expect(midRecords.list.map(\.outcome) == [.cancelled])
        await #expect(throws: BridgeError.self) { try await part.body.read(maxBytes: 1024) }

        let (unreadPage, unread, unreadToken, unreadRecords, _) = try await Self.offered(count: 10, size: 10)
        defer { withExtendedLifetime(unreadPage) {} }
        #expect(await Self.cancel(unread, unreadToken).status == 200)
        #expect(unreadRecords.list.map(\.outcome) == [.cancelled])
        #expect(unread.heldBytes == 0)

        let (wholePage, whole, wholeToken, wholeRecords, _) = try await Self.offered(count: 10, size: 10)
        defer { withExtendedLifetime(wholePage) {} }
        let body = await Self.get(whole, wholeToken, offset: nil)
        #expect(await Self.cancel(whole, wholeToken).status == 409)
        #expect(try await Self.readAll(body.body).count == 10)
        #expect(wholeRecords.list.map(\.outcome) == [.finished])
    }
}

/// ``InMemoryBinaryTransport/downloadParts(_:size:origin:stopAfter:)`` reads as the shim does.
@Suite("Binary values: the test kit's download in parts")
struct InMemoryDownloadPartsTests {
    @Test(
        "downloadParts reads every part to the size; stopping early sends ?cancel and native ends the download once, cancelled",
        .timeLimit(.minutes(1)))
    func readsAndCancels() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await BinaryDownloadPartsTests.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let transport = InMemoryBinaryTransport(transfers: transfers)
        let all = await transport.downloadParts(token, size: count)
        #expect(all.statuses == [200, 200, 200, 200])
        #expect(all.body == Data((0..<count).map { UInt8($0 % 251) }))
        #expect(records.list.map(\.outcome) == [.finished])

        let (otherPage, other, otherToken, otherRecords, _) = try await BinaryDownloadPartsTests.offered(
            count: count, size: count)
        defer { withExtendedLifetime(otherPage) {} }
        let stopped = await InMemoryBinaryTransport(transfers: other).downloadParts(
            otherToken, size: count, stopAfter: 1)
        #expect(stopped.statuses == [200, 200], "one part, then ?cancel")
        #expect(stopped.body.count == 64 << 10)
        #expect(otherRecords.list.map(\.outcome) == [.cancelled])
    }
}

/// A page still reading a download in parts when the app closes the transfers (its web view is
/// closing) learns `unavailable` from its next part, as a read in flight does (docs/protocol.md:
/// a stream native ends errors `unavailable`), not `unknown_transfer`.
@Suite("Binary values: a download in parts after close()")
struct BinaryDownloadPartsCloseTests {
    @Test(
        "the next part after close() is answered 503 unavailable; the download ended once, cancelled",
        .timeLimit(.minutes(1)))
    func nextPartAfterClose() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await BinaryDownloadPartsTests.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let first = await BinaryDownloadPartsTests.get(transfers, token, offset: 0)
        _ = try await BinaryDownloadPartsTests.readAll(first.body)
        transfers.close()
        let next = await BinaryDownloadPartsTests.get(transfers, token, offset: 64 << 10)
        #expect(next.status == 503)
        #expect(try await BinaryDownloadPartsTests.code(next) == "unavailable")
        #expect(records.list.map(\.outcome) == [.cancelled])
    }
}
