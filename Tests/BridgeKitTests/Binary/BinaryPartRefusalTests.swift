import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// A refused upload request ends its upload at once (issue 26): the refused request, the task's
/// stream and the call end with the refusal's stable code, exactly once, without waiting for
/// ``BinaryLimits/claimWait`` or ``BinaryLimits/requestWait``; a later part of the token is
/// answered at once with the same ending. The waits are long here (40 s; a starved test pool can take seconds to answer at once), so that the old
/// behaviour, a `timeout` after the wait, fails these tests on their codes and their clocks.
@Suite("Binary values: a refused part ends the upload at once")
struct BinaryPartRefusalTests {
    typealias Fixture = BinaryTransfersTests
    typealias Saved = BinaryTransfersTests.Saved

    static let limits = BinaryLimits(requestWait: 40, claimWait: 40)
    /// Well under the waits: an ending this quick did not wait for one.
    static let quick: Duration = .seconds(12)

    static func request(_ token: String, offset: Int?, _ data: Data, origin: String = appOrigin) -> BinaryRequest {
        BinaryPartsTests.request(token, offset: offset, data, origin: origin)
    }

    /// The status and the `code` and `reason` of an answer's JSON body.
    static func answer(_ response: BinaryResponse) async throws -> (
        status: Int, code: String?, reason: String?, partBytes: Int64?
    ) {
        var text = Data()
        while let chunk = try await response.body.read(maxBytes: 4096) { text.append(chunk) }
        let json = try BridgeJSON.decode(JSONValue.self, from: text)
        return (response.status, json.string("code"), json.string("reason"), json["partBytes"]?.intValue)
    }

    /// The codes a task's stream ended with, one entry per ending.
    final class Endings: Sendable {
        let codes = Mutex<[String]>([])
        var list: [String] { codes.withLock { $0 } }
    }

    /// `Save`, which records each error its stream ends with, and `Head`, which reads one chunk and stops.
    static func fixture() throws -> (InMemoryPage, BinaryTransfers, InMemoryBinaryTransport, Fixture.Records, Endings) {
        let endings = Endings()
        let transfersBox = Mutex<BinaryTransfers?>(nil)
        let counted = ClosureTask(name: "Count") { (options: Fixture.SaveOptions, context: CallContext) -> Int in
            guard let transfers = transfersBox.withLock({ $0 }) else { throw BridgeError.unavailable() }
            var bytes = 0
            do {
                for try await chunk in try transfers.upload(of: options.file, context: context) { bytes += chunk.count }
            } catch let error as BridgeError {
                endings.codes.withLock { $0.append(error.code) }
                throw error
            }
            return bytes
        }
        let head = ClosureTask(name: "Head") { (options: Fixture.SaveOptions, context: CallContext) -> Int in
            guard let transfers = transfersBox.withLock({ $0 }) else { throw BridgeError.unavailable() }
            var iterator = try transfers.upload(of: options.file, context: context).makeAsyncIterator()
            return try await iterator.next()?.count ?? 0
        }
        let (page, transfers, transport, records) = try Fixture.fixture(limits: limits, extra: [counted, head])
        transfersBox.withLock { $0 = transfers }
        return (page, transfers, transport, records, endings)
    }

    @Test(
        "a part out of order, a replayed part, a whole body after parts, a part of an unsized value: 409 invalid_options at once; the stream and the call end once with it",
        .timeLimit(.minutes(1)),
        arguments: ["skipped", "replayed", "whole", "unsized"])
    func partAgainstTheRules(_ kind: String) async throws {
        let (page, transfers, _, records, endings) = try Self.fixture()
        let data = Fixture.bytes(9)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: kind == "unsized" ? nil : 9)
        let clock = ContinuousClock()
        let start = clock.now
        async let reply = page.call("Count", options: ["name": "a", "file": placeholder])
        // The refused request is sent once its call is pending (it is sent once, not again after `no_room`).
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        if kind == "replayed" || kind == "whole" {
            #expect(
                await BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, data.prefix(3))).status == 200)
        }
        let refused: BinaryRequest =
            switch kind {
            case "skipped": Self.request(token, offset: 3, Data(data[3..<6]))
            case "replayed": Self.request(token, offset: 0, data.prefix(3))
            case "whole": Self.request(token, offset: nil, data)
            default: Self.request(token, offset: 0, data.prefix(3))
            }
        let answer = try await Self.answer(await transfers.handle(refused))
        #expect(answer.status == 409)
        #expect(answer.code == "invalid_options")
        #expect(answer.reason == (kind == "skipped" || kind == "replayed" ? "out_of_order" : "already_used"))
        #expect(await reply["error"]?.string("code") == "invalid_options")
        #expect(clock.now - start < Self.quick, "the call ended at once, not after the claim wait")
        #expect(endings.list == ["invalid_options"], "the task's stream ended once, with the refusal's code")
        #expect(records.list.map(\.outcome) == [.failed("invalid_options")])
        // The rest of the value is answered at once with the same ending (the page sends no more).
        let next = try await Self.answer(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 3, Data(data[3..<6]))))
        #expect(next.status == 400 && next.code == "invalid_options")
        #expect(clock.now - start < Self.quick)
        #expect(transfers.openTransfers == 0)
    }

    @Test(
        "an empty part, first or after a part: the value ended short, 400 invalid_options at once; its offset is not used again",
        .timeLimit(.minutes(1)),
        arguments: [0, 3])
    func emptyPart(_ offset: Int) async throws {
        let (page, transfers, _, records, endings) = try Self.fixture()
        let data = Fixture.bytes(9)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 9)
        let clock = ContinuousClock()
        let start = clock.now
        async let reply = page.call("Count", options: ["name": "a", "file": placeholder])
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        if offset > 0 {
            #expect(
                await BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, data.prefix(offset))).status
                    == 200)
        }
        // Before the fix an empty part was answered 200 and left its offset to be sent again, each
        // time restarting the claim wait: an upload that brought nothing never ended.
        let empty = try await Self.answer(await transfers.handle(Self.request(token, offset: offset, Data())))
        #expect(empty.status == 400 && empty.code == "invalid_options")
        #expect(await reply["error"]?.string("code") == "invalid_options")
        #expect(clock.now - start < Self.quick, "the call ended at once, not after the claim wait")
        #expect(endings.list == ["invalid_options"], "the task's stream ended once")
        #expect(records.list.map(\.outcome) == [.failed("invalid_options")])
        let again = try await Self.answer(
            await transfers.handle(Self.request(token, offset: offset, Data(data[offset..<offset + 3]))))
        #expect(again.status == 400 && again.code == "invalid_options", "the upload stays ended")
        #expect(transfers.openTransfers == 0)
    }

    @Test(
        "a whole body over the part size, declared or found as it is read: 413 payload_too_large (part_too_large) at once",
        .timeLimit(.minutes(1)),
        arguments: ["declared", "unsized"])
    func wholeBodyOverThePartSize(_ kind: String) async throws {
        let limits = BinaryLimits(chunkBytes: BinaryLimits.minimumPartBytes, requestWait: 40, claimWait: 40)
        let (page, transfers, _, records) = try Fixture.fixture(limits: limits)
        let size = limits.partBytes + 1
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: kind == "unsized" ? nil : size)
        let clock = ContinuousClock()
        let start = clock.now
        async let reply = page.call("Save", options: ["name": "a", "file": placeholder])
        #expect(await eventually { page.router.pendingCountsForTesting.calls == 1 })
        // Before the fix a whole body of any size up to the transfer limit was taken in one request.
        let answer = try await Self.answer(
            await transfers.handle(Self.request(token, offset: nil, Fixture.bytes(size))))
        #expect(answer.status == 413 && answer.code == "payload_too_large" && answer.reason == "part_too_large")
        // Both tell the part size, so a page that learned a larger one sends its next values in parts that fit.
        #expect(answer.partBytes == Int64(limits.partBytes))
        let error = await reply["error"]
        #expect(error?.string("code") == "payload_too_large")
        #expect(error?["details"]?.string("reason") == "part_too_large")
        #expect(error?["details"]?["limit"]?.intValue == Int64(limits.partBytes))
        #expect(clock.now - start < Self.quick)
        #expect(records.list.map(\.outcome) == [.failed("payload_too_large")])
        #expect(transfers.openTransfers == 0)
    }

    @Test(
        "a part after the task stopped reading: 499 cancelled at once, not after the request wait",
        .timeLimit(.minutes(1)))
    func partAfterTheTaskStopped() async throws {
        let (page, transfers, transport, records, _) = try Self.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        let clock = ContinuousClock()
        let start = clock.now
        async let reply = page.call("Head", options: ["name": "a", "file": placeholder])
        // The task stops in the middle of the first part: that part's request is answered 499.
        #expect(
            await BinaryPartsTests.handle(transport.transfers, Self.request(token, offset: 0, Fixture.bytes(4))).status
                == 499)
        #expect(await reply["data"] == 4)
        #expect(await eventually { records.list.count == 1 })
        let next = try await Self.answer(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 4, Fixture.bytes(4))))
        #expect(next.status == 499 && next.code == "cancelled")
        #expect(clock.now - start < Self.quick, "answered at once, not after the request wait")
        #expect(records.list.map(\.outcome) == [.cancelled])
    }

    @Test(
        "a part of a later page generation: 410 navigated at once; the upload ended once",
        .timeLimit(.minutes(1)))
    func partOfAnEarlierDocument() async throws {
        let (page, transfers, transport, records, endings) = try Self.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        _ = try #require(page.send("Count", options: ["name": "a", "file": placeholder]))
        #expect(
            await BinaryPartsTests.handle(transport.transfers, Self.request(token, offset: 0, Fixture.bytes(4))).status
                == 200)
        page.navigate()
        transfers.pageDidCommitNavigation()
        let clock = ContinuousClock()
        let start = clock.now
        let next = try await Self.answer(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 4, Fixture.bytes(4))))
        #expect(next.status == 410 && next.code == "navigated")
        #expect(clock.now - start < Self.quick)
        #expect(await eventually { endings.list == ["navigated"] })
        #expect(records.list.count == 1, "ended once")
    }

    @Test(
        "another origin's part is refused (403) and leaves the upload to the page, which finishes it",
        .timeLimit(.minutes(1)))
    func anotherOriginsPart() async throws {
        let (page, transfers, _, records, endings) = try Self.fixture()
        let data = Fixture.bytes(6)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 6)
        async let reply = page.call("Count", options: ["name": "a", "file": placeholder])
        #expect(await BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, data.prefix(3))).status == 200)
        let evil = try await Self.answer(
            await transfers.handle(Self.request(token, offset: 3, Data(count: 3), origin: "https://evil.example")))
        #expect(evil.status == 403 && evil.code == "forbidden")
        #expect(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 3, Data(data[3..<6]))).status == 200)
        #expect(await reply["data"] == 6)
        #expect(endings.list.isEmpty)
        #expect(records.list.map(\.outcome) == [.finished])
        let late = await transfers.handle(Self.request(token, offset: 6, Data([1]), origin: "https://evil.example"))
        #expect(late.status == 403, "an ended upload still tells nothing to another origin")
    }

    @Test(
        "a declared size over the limit: the claim is refused, and the page's waiting and later parts get 413 at once",
        .timeLimit(.minutes(1)))
    func claimOverTheLimit() async throws {
        let (page, transfers, _, records) = try Fixture.fixture(
            limits: BinaryLimits(maxTransferBytes: 5, requestWait: 40, claimWait: 40))
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 8)
        let clock = ContinuousClock()
        let start = clock.now
        // The page's first part goes before the call: it waits for the claim, which is refused.
        async let first = BinaryPartsTests.handle(transfers, Self.request(token, offset: 0, Fixture.bytes(4)))
        try await Task.sleep(for: .milliseconds(50))
        let reply = await page.call("Save", options: ["name": "a", "file": placeholder])
        #expect(reply["error"]?.string("code") == "payload_too_large")
        let waited = try await Self.answer(await first)
        #expect(waited.status == 413 && waited.code == "payload_too_large")
        let later = try await Self.answer(
            await BinaryPartsTests.handle(transfers, Self.request(token, offset: 4, Fixture.bytes(4))))
        #expect(later.status == 413 && later.code == "payload_too_large")
        #expect(clock.now - start < Self.quick, "no request waited for a claim that was refused")
        #expect(records.list.isEmpty, "never claimed, so no transfer ended")
        let again = await page.call("Save", options: ["name": "b", "file": placeholder])
        #expect(again["error"]?.string("code") != nil, "a refused token is used up")
    }
}
