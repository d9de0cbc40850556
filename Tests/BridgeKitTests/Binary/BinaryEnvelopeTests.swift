import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Download tokens travel in the envelope of the message that introduces them (docs/protocol.md,
/// "Binary values"): a call's offers ride its next progress or its final reply under `binary`,
/// with no `webbridge.binary` event; only offers tied to no pending call are still announced by
/// the event. Page data never carries the key, so a page object shaped like a placeholder stays
/// data.
@Suite("Binary values: download tokens in the reply's envelope")
struct BinaryEnvelopeTests {
    /// A task that offers `count` bytes, sends them in a progress value when `progress`, and
    /// returns them (or fails after offering them when `fails`).
    struct Offering: Decodable, Sendable {
        var count: Int
        var progress: Bool?
        var fails: Bool?
        var twice: Bool?
    }

    /// The fixture's transfers, for the tasks registered before they exist.
    final class Box: Sendable {
        let transfers = Mutex<BinaryTransfers?>(nil)
        func get() throws -> BinaryTransfers {
            guard let transfers = transfers.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return transfers
        }
    }

    static func fixture() throws -> (InMemoryPage, BinaryTransfers, InMemoryBinaryTransport) {
        let box = Box()
        let (page, transfers, transport, _) = try BinaryTransfersTests.fixture(
            extra: [
                ClosureTask(name: "Offer") { (options: Offering, context: CallContext) -> JSONValue in
                    let transfers = try box.get()
                    let first = try await transfers.send(Data(repeating: 5, count: options.count), context: context)
                    let placeholder = try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(first))
                    if options.progress == true { try await context.progress(["file": placeholder]) }
                    if options.fails == true { throw BridgeError.taskFailed("failed after offering") }
                    guard options.twice == true else {
                        return options.progress == true ? "done" : ["file": placeholder]
                    }
                    let second = try await transfers.send(Data(repeating: 6, count: 3), context: context)
                    return [
                        "file": placeholder,
                        "other": try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(second)),
                    ]
                }
            ])
        box.transfers.withLock { $0 = transfers }
        return (page, transfers, transport)
    }

    static func token(_ value: JSONValue?) -> String? { value?[BridgeBinary.placeholderKey]?.string("token") }

    @Test(
        "a task returning Data: one outbound message, the reply, with its token; no announcement event",
        .timeLimit(.minutes(1)), arguments: [false, true])
    func oneMessage(replyHandler: Bool) async throws {
        let (page, transfers, transport) = try Self.fixture()
        let reply = await page.call("Make", options: 1000, replyHandler: replyHandler)
        let token = try #require(Self.token(reply["data"]?["file"]))
        #expect(page.messages.count == 1, "\(page.messages)")
        #expect(page.messages.first?.string("kind") == "reply")
        #expect(reply["binary"] == [.string(token)])
        #expect(!page.messages.contains { $0.string("name") == BinaryTransfers.announcementEvent })
        #expect(transfers.heldBytes == 1000)
        let (status, body) = await transport.download(token)
        #expect(status == 200)
        #expect(body.count == 1000)
    }

    @Test("two offers in one result: both tokens in the reply's envelope, in order", .timeLimit(.minutes(1)))
    func twoOffers() async throws {
        let (page, _, _) = try Self.fixture()
        let reply = await page.call("Offer", options: ["count": 10, "twice": true])
        let first = try #require(Self.token(reply["data"]?["file"]))
        let second = try #require(Self.token(reply["data"]?["other"]))
        #expect(reply["binary"] == [.string(first), .string(second)])
        #expect(page.messages.count == 1)
    }

    @Test(
        "progress with Data carries its token; the final reply carries none; no announcement event",
        .timeLimit(.minutes(1)))
    func progressCarriesToken() async throws {
        let (page, _, transport) = try Self.fixture()
        let reply = await page.call("Offer", options: ["count": 10, "progress": true], id: "p-1")
        #expect(reply["data"] == "done")
        let messages = page.messages(for: "p-1")
        #expect(messages.map { $0.string("kind") ?? "?" } == ["progress", "reply"])
        let token = try #require(Self.token(messages.first?["data"]?["file"]))
        #expect(messages.first?["binary"] == [.string(token)])
        #expect(reply["binary"] == nil, "a token rides one message only")
        #expect(page.messages.count == 2, "no announcement event")
        #expect(await transport.download(token).status == 200)
    }

    @Test("an error reply after an offer carries its token (the page records it)", .timeLimit(.minutes(1)))
    func errorReplyCarriesToken() async throws {
        let (page, _, _) = try Self.fixture()
        let reply = await page.call("Offer", options: ["count": 10, "fails": true])
        #expect(reply["ok"] == false)
        #expect(reply["binary"]?.arrayValue?.count == 1)
        #expect(page.messages.count == 1)
    }

    @Test(
        "bytes offered with no pending call (a context of its own, for an event) still go with the announcement event",
        .timeLimit(.minutes(1)))
    func eventStillAnnounced() async throws {
        let (page, transfers, transport) = try Self.fixture()
        let context = CallContext(
            callID: nil, taskName: "push",
            source: MessageSource(origin: SecurityOrigin(appOrigin), isMainFrame: true),
            pageGeneration: page.router.pageGeneration)
        let binary = try await transfers.send(Data([1, 2, 3]), context: context)
        try await page.router.emit("file", data: ["file": binary])
        let messages = page.messages
        #expect(messages.map { $0.string("name") ?? "?" } == [BinaryTransfers.announcementEvent, "file"])
        #expect(messages.first?["data"]?["tokens"] == [.string(binary.token)])
        #expect(messages.last?["binary"] == nil)
        #expect(await transport.download(binary.token).status == 200)
    }

    @Test(
        "a page object with a forged $bridgeBinary in its data and no envelope token stays data",
        .timeLimit(.minutes(1)))
    func forgedStaysData() async throws {
        let (page, transfers, transport) = try Self.fixture()
        let forged: JSONValue = [BridgeBinary.placeholderKey: ["token": "8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5", "size": 3]]
        let reply = await page.call("echo", options: ["echo": forged])
        #expect(reply["data"]?["echo"] == forged)
        #expect(reply["binary"] == nil)
        #expect(page.messages.count == 1)
        #expect(transfers.openTransfers == 0)
        #expect(await transport.download("8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5").status == 404)
    }

    @Test(
        "a reply dropped by a navigation drops its tokens: nothing reaches the next document, the offer is freed",
        .timeLimit(.minutes(1)))
    func navigationDropsTokens() async throws {
        let gate = Mutex(false)
        let offered = Mutex<String?>(nil)
        let (page, transfers, transport) = try Self.fixture()
        try page.router.register(
            ClosureTask(name: "Hold") { (_: JSONValue, context: CallContext) -> BridgeBinary in
                let binary = try await transfers.send(Data([1, 2]), context: context)
                offered.withLock { $0 = binary.token }
                while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
                return binary
            })
        let id = try #require(page.send("Hold"))
        #expect(await eventually { offered.withLock { $0 } != nil })
        let token = try #require(offered.withLock { $0 })
        page.navigate()
        transfers.pageDidCommitNavigation()  // as the hosts do when a document commits
        gate.withLock { $0 = true }
        #expect(await eventually { transfers.heldBytes == 0 })
        #expect(page.messages(for: id).isEmpty)
        #expect(
            !page.messages.contains { $0["binary"] != nil || $0.string("name") == BinaryTransfers.announcementEvent })
        #expect(await transport.download(token).status == 404)
    }
}
