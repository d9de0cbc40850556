import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Uploads sent in parts (`POST webbridge-binary://transfer/<token>?offset=<n>`, one request
/// after the other), so the app's process holds one part at a time: every part is checked like
/// a whole body (origin, claim, generation, limits) and each offset is used once, in order.
@Suite("Binary values: uploads in parts")
struct BinaryPartsTests {
    typealias Fixture = BinaryTransfersTests
    typealias Saved = BinaryTransfersTests.Saved

    static func request(_ token: String, offset: Int?, _ data: Data, origin: String = appOrigin) -> BinaryRequest {
        BinaryRequest(
            method: "POST", url: InMemoryBinaryTransport.url(token, offset: offset), origin: origin,
            body: DataBodyReader(data))
    }

    @Test(
        "a body in parts reaches the task whole and in order; every part is answered 200; one finished record",
        .timeLimit(.minutes(1)))
    func partsRoundTrip() async throws {
        let (page, transfers, transport, records) = try Fixture.fixture(
            limits: BinaryLimits(chunkBytes: 1000, requestWait: 30, claimWait: 30))
        let data = Fixture.bytes(10_500)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        let statuses = await transport.uploadParts(data, token: token, partBytes: 3000)
        let saved = try InMemoryPage.result(of: await reply, as: Saved.self)
        #expect(statuses == [200, 200, 200, 200])
        #expect(saved == Saved(name: "a", bytes: 10_500, sum: Fixture.sum(data)))
        #expect(records.list.map(\.outcome) == [.finished])
        #expect(records.list.first?.bytes == 10_500)
        #expect(transfers.openTransfers == 0)
    }

    @Test(
        "another origin's part is refused without ending the upload; a part of a finished upload is refused at once (404)",
        .timeLimit(.minutes(1)))
    func refusedParts() async throws {
        // Long waits: the refusals must not wait for them (the page's own refusals: BinaryPartRefusalTests).
        let (page, _, transport, _) = try Fixture.fixture(limits: BinaryLimits(requestWait: 40, claimWait: 30))
        let data = Fixture.bytes(9)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 9)
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        let transfers = transport.transfers
        let evil = await transfers.handle(
            Self.request(token, offset: 0, Data(count: 3), origin: "https://evil.example"))
        #expect(evil.status == 403 || evil.status == 404, "403 once claimed, 404 before (no wait for it)")
        #expect(await BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, data.prefix(3))).status == 200)
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 3, Data(data[3..<6]))).status == 200)
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 6, Data(data[6..<9]))).status == 200)
        #expect(try InMemoryPage.result(of: await reply, as: Saved.self).sum == Fixture.sum(data))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 9, Data([1]))).status == 404, "used up"
        )
        #expect(clock.now - start < .seconds(12), "answered at once, not after the request wait")
    }

    @Test(
        "a part of a value of unknown size is refused and ends the upload (invalid_options); a whole body after it too",
        .timeLimit(.minutes(1)))
    func partsOnlyWhereAllowed() async throws {
        let (page, _, transport, _) = try Fixture.fixture(limits: BinaryLimits(requestWait: 30, claimWait: 30))
        let (unsized, unsizedToken) = InMemoryBinaryTransport.placeholder(size: nil)
        async let first = page.call("Save", options: ["name": "a", "file": unsized])
        let part = await BinaryPartsTests.handle(transport.transfers, Self.request(unsizedToken, offset: 0, Data([1])))
        #expect(part.status == 409, "a part needs a declared size")
        #expect(await first["error"]?.string("code") == "invalid_options")
        #expect(await transport.upload(Data([1, 2]), token: unsizedToken) == 400)
    }

    @Test("a last part that goes past the declared size: 413 and payload_too_large", .timeLimit(.minutes(1)))
    func partOverSize() async throws {
        let (page, _, transport, records) = try Fixture.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 6)
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        let statuses = await transport.uploadParts(Fixture.bytes(8), token: token, partBytes: 4)
        #expect(statuses == [200, 413])
        #expect(await reply["error"]?.string("code") == "payload_too_large")
        #expect(records.list.map(\.outcome) == [.failed("payload_too_large")])
    }

    @Test("malformed part URLs name no transfer (404)", .timeLimit(.minutes(1)))
    func malformedQueries() async throws {
        let (_, transfers, _, _) = try Fixture.fixture(limits: BinaryLimits(requestWait: 0.1, claimWait: 2))
        let token = InMemoryBinaryTransport.placeholder(size: 1).token
        for query in ["?offset=", "?offset=x", "?offset=-1", "?x=1", "?offset=1&offset=2", "?offset=1234567890123456"] {
            let url = InMemoryBinaryTransport.url(token) + query
            let response = await transfers.handle(
                BinaryRequest(method: "POST", url: url, origin: appOrigin, body: DataBodyReader(Data([1]))))
            #expect(response.status == 404, "\(query)")
        }
    }

    @Test(
        "the wait for the next part is per part: parts slower together than claimWait still finish; a part that never comes times out",
        .timeLimit(.minutes(1)))
    func waitPerPart() async throws {
        let (page, _, transport, _) = try Fixture.fixture(limits: BinaryLimits(requestWait: 30, claimWait: 0.5))
        let data = Fixture.bytes(8)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        for offset in stride(from: 0, to: 8, by: 2) {
            try await Task.sleep(for: .milliseconds(250))
            let part = Data(data[offset..<(offset + 2)])
            #expect(
                await BinaryPartsTests.handle(transport.transfers, Self.request(token, offset: offset, part)).status
                    == 200)
        }
        #expect(try InMemoryPage.result(of: await reply, as: Saved.self).bytes == 8)

        let (stalled, stalledToken) = InMemoryBinaryTransport.placeholder(size: 8)
        async let late = page.call("Save", options: ["name": "b", "file": stalled])
        #expect(
            await BinaryPartsTests.handle(transport.transfers, Self.request(stalledToken, offset: 0, data.prefix(2)))
                .status == 200)
        #expect(await late["error"]?.string("code") == "timeout")
    }

    @Test("navigation between parts: the next part is refused and the upload ends once", .timeLimit(.minutes(1)))
    func navigationBetweenParts() async throws {
        let (page, transfers, transport, records) = try Fixture.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        let id = try #require(page.send("Save", options: ["name": "a", "file": placeholder]))
        #expect(
            await BinaryPartsTests.handle(transport.transfers, Self.request(token, offset: 0, Fixture.bytes(4))).status
                == 200)
        page.navigate()
        transfers.pageDidCommitNavigation()
        let next = await BinaryPartsTests.handle(transport.transfers, Self.request(token, offset: 4, Fixture.bytes(4)))
        #expect(next.status == 410)
        #expect(await eventually { records.list.count == 1 })
        #expect(page.messages(for: id).isEmpty)
        #expect(transfers.openTransfers == 0)
    }

    /// An answer's JSON body.
    /// Sends `request` as the shim does: again while native answers `no_room` (its call was not
    /// admitted yet; ``InMemoryBinaryTransport/send(_:)``).
    static func handle(_ transfers: BinaryTransfers, _ request: @autoclosure () -> BinaryRequest) async
        -> BinaryResponse
    {
        await InMemoryBinaryTransport(transfers: transfers).send(request)
    }

    static func body(_ response: BinaryResponse) async throws -> JSONValue {
        var text = Data()
        while let chunk = try await response.body.read(maxBytes: 4096) { text.append(chunk) }
        return try BridgeJSON.decode(JSONValue.self, from: text)
    }

    @Test(
        "every upload answer tells the app's part size: the fixture binary/part-answer.json under the default limits",
        .timeLimit(.minutes(1)))
    func partAnswerFixture() async throws {
        struct Fixture: Decodable {
            var kind: String
            var message: JSONValue
        }
        let fixture = try BridgeJSON.decode(
            Fixture.self, from: Data(contentsOf: Repository.url("Tests/Fixtures/binary/part-answer.json")))
        #expect(fixture.kind == "answer")
        let (page, transfers, _, _) = try BinaryTransfersTests.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        for offset in [0, 4] {
            let answer = await BinaryPartsTests.handle(
                transfers, Self.request(token, offset: offset, BinaryTransfersTests.bytes(4)))
            #expect(Int64(answer.status) == fixture.message.int("status"))
            #expect(try await Self.body(answer) == fixture.message["body"], "part at \(offset)")
        }
        #expect(try InMemoryPage.result(of: await reply, as: Saved.self).bytes == 8)
        // A whole body's answer tells it too.
        let (whole, wholeToken) = InMemoryBinaryTransport.placeholder(size: 3)
        async let second = page.call("Save", options: ["name": "b", "file": whole])
        let answer = await BinaryPartsTests.handle(transfers, Self.request(wholeToken, offset: nil, Data([1, 2, 3])))
        #expect(try await Self.body(answer) == fixture.message["body"])
        #expect(await second["ok"] == true)
    }

    @Test("the part size is BinaryLimits.chunkBytes, at least 64 KiB (the page's first part always fits)")
    func partSizeFollowsTheChunkBudget() {
        #expect(BinaryLimits().partBytes == 1 << 20)
        #expect(BinaryLimits(chunkBytes: 100_000).partBytes == 100_000)
        #expect(BinaryLimits(chunkBytes: 8 << 20).partBytes == 8 << 20)
        #expect(BinaryLimits(chunkBytes: 1000).partBytes == BinaryLimits.minimumPartBytes)
        #expect(BinaryLimits.minimumPartBytes == 65536)
    }

    @Test(
        "a part over the app's part size: 413 payload_too_large (part_too_large) at once; the upload ends once",
        .timeLimit(.minutes(1)))
    func partOverThePartSize() async throws {
        let limits = BinaryLimits(chunkBytes: 100_000, requestWait: 40, claimWait: 40)
        let (page, transfers, _, records) = try Fixture.fixture(limits: limits)
        let size = 300_000
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: size)
        let clock = ContinuousClock()
        let start = clock.now
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        let first = await BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, Fixture.bytes(65_536)))
        #expect(try await Self.body(first)["partBytes"] == 100_000)
        let over = await BinaryPartsTests.handle(transfers, Self.request(token, offset: 65_536, Fixture.bytes(100_001)))
        #expect(over.status == 413)
        let body = try await Self.body(over)
        #expect(body.string("code") == "payload_too_large" && body.string("reason") == "part_too_large", "\(body)")
        #expect(await reply["error"]?.string("code") == "payload_too_large")
        #expect(clock.now - start < .seconds(12))
        #expect(records.list.map(\.outcome) == [.failed("payload_too_large")])
        // A part of exactly the part size is fine.
        let (exact, exactToken) = InMemoryBinaryTransport.placeholder(size: 200_000)
        async let second = page.call("Save", options: ["name": "b", "file": exact])
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(exactToken, offset: 0, Fixture.bytes(100_000))).status
                == 200)
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(exactToken, offset: 100_000, Fixture.bytes(100_000)))
                .status == 200)
        #expect(await second["ok"] == true)
    }
}
