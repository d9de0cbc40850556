import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// The byte transport's policy on Linux: uploads and downloads through an in-memory transport,
/// bound to calls admitted over the checked channel (origin, main frame, page generation).
@Suite("Binary values: transfers and their policy")
struct BinaryTransfersTests {
    struct SaveOptions: Decodable, Sendable {
        var name: String
        var file: BridgeBinary
    }

    struct Saved: Codable, Sendable, Equatable {
        var name: String
        var bytes: Int
        var sum: Int
    }

    /// Collects transfer records.
    final class Records: Sendable {
        let all = Mutex<[BinaryTransferRecord]>([])
        init(_ transfers: BinaryTransfers) {
            transfers.setTransferObserver { [weak self] record in self?.all.withLock { $0.append(record) } }
        }
        var list: [BinaryTransferRecord] { all.withLock { $0 } }
    }

    /// Waits long enough that a starved test pool (sanitizers, parallel suites) never runs them out
    /// where a test does not mean to; the tests of the waits themselves set short ones.
    static func fixture(
        limits: BinaryLimits = BinaryLimits(requestWait: 30, claimWait: 30),
        extra: [any BridgeTask] = [],
        policy: AccessPolicy = .origins([OriginPattern(appOrigin)], allowsSubframes: true)
    ) throws -> (InMemoryPage, BinaryTransfers, InMemoryBinaryTransport, Records) {
        let router = try makeRouter([], policy: policy)
        let transfers = BinaryTransfers(router: router, limits: limits)
        try router.register(
            ClosureTask(name: "Save") { (options: SaveOptions, context: CallContext) -> Saved in
                var bytes = 0
                var sum = 0
                for try await chunk in try transfers.upload(of: options.file, context: context) {
                    bytes += chunk.count
                    sum = chunk.reduce(sum) { ($0 + Int($1)) % 65521 }
                }
                return Saved(name: options.name, bytes: bytes, sum: sum)
            })
        try router.register(
            ClosureTask(name: "Make") { (count: Int, context: CallContext) -> JSONValue in
                let binary = try await transfers.send(
                    Data((0..<count).map { UInt8($0 % 251) }), type: "application/x-test", context: context)
                return ["file": try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(binary)), "note": "made"]
            })
        try router.register(echoTask)
        for task in extra { try router.register(task) }
        return (
            InMemoryPage(router: router), transfers, InMemoryBinaryTransport(transfers: transfers), Records(transfers)
        )
    }

    static func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 253) }) }
    static func sum(_ data: Data) -> Int { data.reduce(0) { ($0 + Int($1)) % 65521 } }

    @Test(
        "page to native: a body reaches the task in chunks; the request is answered 200; one finished record",
        .timeLimit(.minutes(1)))
    func uploadRoundTrip() async throws {
        let (page, _, transport, records) = try Self.fixture(
            limits: BinaryLimits(chunkBytes: 1000, requestWait: 30, claimWait: 30))
        let data = Self.bytes(10_000)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count, type: "image/png")
        async let reply = page.call("Save", options: ["name": "a.png", "file": placeholder])
        let status = await transport.upload(data, token: token)
        let saved = try InMemoryPage.result(of: await reply, as: Saved.self)
        #expect(status == 200)
        #expect(saved == Saved(name: "a.png", bytes: 10_000, sum: Self.sum(data)))
        #expect(records.list.map(\.outcome) == [.finished])
        #expect(records.list.first?.bytes == 10_000)
    }

    @Test("a request that arrives before the task claims its token waits for the claim", .timeLimit(.minutes(1)))
    func requestBeforeClaim() async throws {
        let (page, _, transport, _) = try Self.fixture()
        let data = Self.bytes(3)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 3)
        async let status = transport.upload(data, token: token)
        try await Task.sleep(for: .milliseconds(100))
        let reply = await page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(await status == 200)
        #expect(try InMemoryPage.result(of: reply, as: Saved.self).bytes == 3)
    }

    @Test(
        "another origin can neither inject a body (403) nor use up the token; the page's own request still works",
        .timeLimit(.minutes(1)))
    func otherOriginRefused() async throws {
        let (page, _, transport, _) = try Self.fixture()
        let data = Self.bytes(5)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 5)
        async let reply = page.call("Save", options: ["name": "x", "file": placeholder])
        let evil = DataBodyReader(Data([9, 9, 9, 9, 9]))
        // 403 once the task claimed the token; 404 before (an origin no policy lets call does not
        // wait for the claim).
        let refused = await transport.upload(Data(), token: token, origin: "https://evil.example", body: evil)
        #expect(refused == 403 || refused == 404)
        #expect(evil.isCancelled)
        let missing = await transport.transfers.handle(
            BinaryRequest(
                method: "POST", url: InMemoryBinaryTransport.url(token), origin: nil, body: DataBodyReader(Data([1]))))
        #expect(missing.status == 403 || missing.status == 404, "no Origin header")
        #expect(await transport.upload(data, token: token) == 200)
        #expect(try InMemoryPage.result(of: await reply, as: Saved.self).sum == Self.sum(data))
    }

    @Test("a guessed token waits, then 404; a replayed token after its upload: 404", .timeLimit(.minutes(1)))
    func guessAndReplay() async throws {
        let (page, _, transport, _) = try Self.fixture(limits: BinaryLimits(requestWait: 0.2, claimWait: 2))
        let (_, guessed) = InMemoryBinaryTransport.placeholder(size: 1)
        #expect(await transport.upload(Data([1]), token: guessed) == 404)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 1)
        async let reply = page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(await transport.upload(Data([1]), token: token) == 200)
        _ = await reply
        #expect(await transport.upload(Data([2]), token: token) == 404, "a token is used once")
        let malformed = await transport.transfers.handle(
            BinaryRequest(
                method: "POST", url: "webbridge-binary://transfer/../x", origin: appOrigin, body: DataBodyReader(Data())
            ))
        #expect(malformed.status == 404)
    }

    @Test("a call from a subframe cannot claim bytes (forbidden); its request is never served", .timeLimit(.minutes(1)))
    func subframeRefused() async throws {
        let (page, _, transport, _) = try Self.fixture(limits: BinaryLimits(requestWait: 0.3, claimWait: 2))
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 1)
        async let status = transport.upload(Data([1]), token: token)
        let reply = await page.call("Save", options: ["name": "x", "file": placeholder], from: .subframe(appOrigin))
        #expect(reply["error"]?.string("code") == "forbidden")
        #expect(reply["error"]?["details"]?.string("reason") == "subframe")
        #expect(await status == 404)
    }

    @Test(
        "a body over its declared size is cut off: 413 to the page, payload_too_large to the call",
        .timeLimit(.minutes(1)))
    func overDeclaredSize() async throws {
        let (page, _, transport, records) = try Self.fixture(
            limits: BinaryLimits(chunkBytes: 4, requestWait: 30, claimWait: 30))
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        async let reply = page.call("Save", options: ["name": "x", "file": placeholder])
        // Sent once its call is pending (a body of its own is sent once, not again after `no_room`).
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        let body = DataBodyReader(Self.bytes(64))
        #expect(await transport.upload(Data(), token: token, body: body) == 413)
        #expect(await reply["error"]?.string("code") == "payload_too_large")
        #expect(body.isCancelled, "the rest of the body is never read")
        #expect(records.list.map(\.outcome) == [.failed("payload_too_large")])
    }

    @Test("a declared size over the limit is refused before any byte moves", .timeLimit(.minutes(1)))
    func declaredOverLimit() async throws {
        let (page, _, _, _) = try Self.fixture(
            limits: BinaryLimits(maxTransferBytes: 100, requestWait: 30, claimWait: 30))
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 101)
        let reply = await page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(reply["error"]?.string("code") == "payload_too_large")
    }

    @Test("a body that ends short fails the call (invalid_options)", .timeLimit(.minutes(1)))
    func shortBody() async throws {
        let (page, _, transport, _) = try Self.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 10)
        async let reply = page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(await transport.upload(Self.bytes(4), token: token) == 400)
        #expect(await reply["error"]?.string("code") == "invalid_options")
    }

    @Test(
        "navigation mid-upload: the call settles navigated, the request is answered, the transfer ends once",
        .timeLimit(.minutes(1)))
    func navigationMidUpload() async throws {
        let (page, _, transport, records) = try Self.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Save", options: ["name": "x", "file": placeholder]))
        let body = StallingBody(first: Data([1, 2]))
        async let status = transport.transfers.handle(
            BinaryRequest(method: "POST", url: InMemoryBinaryTransport.url(token), origin: appOrigin, body: body))
        #expect(await eventually { body.reads >= 1 })
        page.navigate()
        // The old document gets no reply (a reply never reaches another document); its request is answered.
        #expect(page.messages(for: id).isEmpty)
        let answered = await status.status
        #expect(answered == 499 || answered == 410)
        #expect(await eventually { records.list.count == 1 })
        #expect(body.cancelled)
        #expect(await transport.upload(Data([1]), token: token) == 410, "a later request is told at once")
    }

    @Test(
        "page cancel mid-upload: the task is cancelled, the body stopped, one cancelled record", .timeLimit(.minutes(1))
    )
    func cancelMidUpload() async throws {
        let (page, transfers, transport, records) = try Self.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Save", options: ["name": "x", "file": placeholder]))
        let body = StallingBody(first: Data([1, 2]))
        async let status = transport.transfers.handle(
            BinaryRequest(method: "POST", url: InMemoryBinaryTransport.url(token), origin: appOrigin, body: body))
        #expect(await eventually { body.reads >= 1 })
        page.cancel(id)
        #expect(await status.status == 499)
        #expect(body.cancelled)
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(transfers.openTransfers == 0)
    }

    @Test(
        "native to page: the reply carries a placeholder and its token in its envelope; the bytes come once, to the call's origin only",
        .timeLimit(.minutes(1)))
    func downloadRoundTrip() async throws {
        let (page, transfers, transport, records) = try Self.fixture()
        let reply = await page.call("Make", options: 100_000)
        let file = try #require(reply["data"]?["file"]?[BridgeBinary.placeholderKey])
        let token = try #require(file.string("token"))
        #expect(file["size"] == 100_000)
        #expect(file.string("type") == "application/x-test")
        let kinds = page.messages.map { $0.string("kind") ?? "?" }
        #expect(kinds == ["reply"], "one message: no announcement event before the reply")
        #expect(reply["binary"] == [.string(token)])
        #expect(transfers.heldBytes == 100_000)
        #expect(await transport.download(token, origin: "https://evil.example").status == 403)
        let (status, body) = await transport.download(token)
        #expect(status == 200)
        #expect(body == Data((0..<100_000).map { UInt8($0 % 251) }))
        #expect(await transport.download(token).status == 404, "once")
        #expect(records.list.map(\.outcome) == [.finished])
        #expect(transfers.heldBytes == 0)
    }

    @Test("a download offered to an earlier document is dead after navigation", .timeLimit(.minutes(1)))
    func downloadAfterNavigation() async throws {
        let (page, transfers, transport, records) = try Self.fixture()
        let reply = await page.call("Make", options: 10)
        let token = try #require(reply["data"]?["file"]?[BridgeBinary.placeholderKey]?.string("token"))
        page.navigate()
        #expect(await transport.download(token).status == 404)
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(transfers.heldBytes == 0)
    }

    @Test(
        "a streamed download read by the page in chunks; the page's abort cancels the stream once",
        .timeLimit(.minutes(1)))
    func streamedDownloadCancelled() async throws {
        let terminated = Mutex(0)
        let task = ClosureTask(name: "Stream") { (_: JSONValue, context: CallContext) -> BridgeBinary in
            let stream = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.onTermination = { _ in terminated.withLock { $0 += 1 } }
                for _ in 0..<10 { continuation.yield(Data(repeating: 7, count: 100_000)) }
            }
            return try await Self.transfersOf(context).send(chunks: stream, size: 2_000_000, context: context)
        }
        let (page, transfers, transport, records) = try Self.fixture(extra: [task])
        Self.current.withLock { $0 = transfers }
        let reply = await page.call("Stream")
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let (_, body) = await transport.download(token, stopAfter: 300_000)
        #expect(body.count >= 300_000 && body.count < 2_000_000)
        #expect(await eventually { terminated.withLock { $0 } == 1 })
        #expect(records.list.map(\.outcome) == [.cancelled])
    }

    static let current = Mutex<BinaryTransfers?>(nil)
    static func transfersOf(_ context: CallContext) throws -> BinaryTransfers {
        guard let transfers = current.withLock({ $0 }) else { throw BridgeError.unavailable() }
        return transfers
    }

    @Test("a page object with a \"$bridgeBinary\" key is only data: it round-trips unchanged", .timeLimit(.minutes(1)))
    func placeholderKeyRoundTrips() async throws {
        let (page, _, _, records) = try Self.fixture()
        let lookalike: JSONValue = ["$bridgeBinary": ["token": "0123456789abcdef0123456789abcdef", "size": 1]]
        let reply = await page.call("echo", options: ["x": lookalike])
        #expect(reply["data"] == ["x": lookalike])
        #expect(records.list.isEmpty)
    }

    @Test("a placeholder with a token of the wrong shape is invalid_options")
    func malformedPlaceholder() async throws {
        let (page, _, _, _) = try Self.fixture()
        let reply = await page.call("Save", options: ["name": "x", "file": ["$bridgeBinary": ["token": "ABC"]]])
        #expect(reply["error"]?.string("code") == "invalid_options")
    }

    @Test("close ends every open transfer as cancelled and refuses new ones", .timeLimit(.minutes(1)))
    func closeEndsTransfers() async throws {
        let (page, transfers, _, records) = try Self.fixture()
        _ = await page.call("Make", options: 10)
        _ = await page.call("Make", options: 20)
        transfers.close()
        #expect(records.list.map(\.outcome) == [.cancelled, .cancelled])
        #expect(transfers.heldBytes == 0)
        let reply = await page.call("Make", options: 1)
        #expect(reply["error"]?.string("code") == "unavailable")
    }
}

/// A request body that hands out one chunk, then waits until cancelled.
final class StallingBody: BinaryBodyReader, @unchecked Sendable {
    private let state: Mutex<(first: Data?, reads: Int, cancelled: Bool)>
    init(first: Data) { state = Mutex((first, 0, false)) }
    var reads: Int { state.withLock { $0.reads } }
    var cancelled: Bool { state.withLock { $0.cancelled } }
    func read(maxBytes: Int) async throws -> Data? {
        let chunk = state.withLock { s -> Data? in
            s.reads += 1
            defer { s.first = nil }
            return s.first
        }
        if let chunk { return chunk }
        while !cancelled {
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CancellationError()
    }
    func cancel() { state.withLock { $0.cancelled = true } }
}
