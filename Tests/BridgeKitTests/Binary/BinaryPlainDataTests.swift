import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Plain `Data` in a call's result or progress reaches the page as a binary value (a placeholder
/// whose token rides the message's envelope, fetched over the byte transport) when the router has
/// ``BinaryTransfers``; without them, and for calls the byte transport does not serve, it is
/// base64 as before (found by a new user's trial: the README promised a `Uint8Array`, the page got
/// `"AQID"`).
@Suite("Binary values: plain Data in results and progress")
struct BinaryPlainDataTests {
    struct Nested: Encodable, Sendable {
        var name: String
        var file: Data
        var parts: [Data]
        var none: Data?
    }

    struct Count: Decodable, Sendable { var count: Int }
    struct DataOptions: Decodable, Sendable { var data: Data }

    /// A task that encodes `Data` for itself while it runs (its own JSON, say, for a file): not
    /// a message of the call, so base64.
    struct Own: Encodable { var blob: Data }

    static func fixture(limits: BinaryLimits = BinaryLimits(requestWait: 30, claimWait: 30)) throws -> (
        InMemoryPage, BinaryTransfers, InMemoryBinaryTransport
    ) {
        let (page, transfers, transport, _) = try BinaryTransfersTests.fixture(
            limits: limits,
            extra: [
                ClosureTask(name: "Plain") { (options: Count, _: CallContext) in
                    Data((0..<options.count).map { UInt8($0 % 251) })
                },
                SynchronousClosureTask(name: "PlainSync") { (options: Count, _: CallContext) in
                    Data((0..<options.count).map { UInt8($0 % 251) })
                },
                ClosureTask(name: "Nested") { (_: NoOptions, _: CallContext) in
                    Nested(name: "n", file: Data([1, 2, 3]), parts: [Data([4]), Data()], none: nil)
                },
                ClosureTask(name: "Progress") { (_: NoOptions, context: CallContext) in
                    try await context.progress(["chunk": Data([9, 8, 7])])
                    return "done"
                },
                ClosureTask(name: "DataField") { (options: DataOptions, _: CallContext) in options.data.count },
                ClosureTask(name: "OwnJSON") { (_: NoOptions, _: CallContext) in
                    String(decoding: try BridgeJSON.encode(Own(blob: Data([1, 2, 3]))), as: UTF8.self)
                },
            ])
        return (page, transfers, transport)
    }

    static func token(_ value: JSONValue?) -> String? { value?[BridgeBinary.placeholderKey]?.string("token") }

    @Test(
        "a task's Data result is a placeholder whose token rides the reply; the page fetches the exact bytes",
        .timeLimit(.minutes(1)), arguments: ["Plain", "PlainSync"], [false, true])
    func dataResult(task: String, replyHandler: Bool) async throws {
        let (page, transfers, transport) = try Self.fixture()
        let reply = await page.call(task, options: ["count": 1000], replyHandler: replyHandler)
        #expect(reply["ok"] == true, "\(reply)")
        let token = try #require(Self.token(reply["data"]), "\(reply)")
        #expect(reply["data"]?[BridgeBinary.placeholderKey]?["size"] == 1000)
        #expect(reply["binary"] == [.string(token)])
        #expect(transfers.heldBytes == 1000)
        let (status, body) = await transport.download(token)
        #expect(status == 200)
        #expect(body == Data((0..<1000).map { UInt8($0 % 251) }))
        #expect(transfers.heldBytes == 0)
    }

    @Test("every Data in a nested result becomes a download, in the order written; an absent one stays absent")
    func nested() async throws {
        let (page, _, transport) = try Self.fixture()
        let reply = await page.call("Nested")
        let data = try #require(reply["data"])
        let file = try #require(Self.token(data["file"]))
        let first = try #require(Self.token(data["parts"]?[0]))
        let empty = try #require(Self.token(data["parts"]?[1]))
        #expect(reply["binary"] == [.string(file), .string(first), .string(empty)])
        #expect(data["name"] == "n")
        #expect(data["none"] == nil)
        #expect(await transport.download(file).body == Data([1, 2, 3]))
        #expect(await transport.download(empty).body == Data())
    }

    @Test("Data in a progress value is a download whose token rides that progress message")
    func progress() async throws {
        let (page, _, transport) = try Self.fixture()
        let reply = await page.call("Progress", id: "p-1")
        #expect(reply["data"] == "done")
        let progress = try #require(page.messages(for: "p-1").first { $0.string("kind") == "progress" })
        let token = try #require(Self.token(progress["data"]?["chunk"]))
        #expect(progress["binary"] == [.string(token)])
        #expect(reply["binary"] == nil)
        #expect(await transport.download(token).body == Data([9, 8, 7]))
    }

    @Test("Data over the byte transport's limit fails the call with payload_too_large and holds nothing")
    func overLimit() async throws {
        let (page, transfers, _) = try Self.fixture(
            limits: BinaryLimits(maxTransferBytes: 100, requestWait: 30, claimWait: 30))
        for task in ["Plain", "PlainSync"] {
            let reply = await page.call(task, options: ["count": 101])
            #expect(reply["error"]?.string("code") == "payload_too_large", "\(task): \(reply)")
            #expect(reply["binary"] == nil)
        }
        #expect(transfers.heldBytes == 0)
    }

    @Test("a Data value after one over the limit withdraws the downloads written before it")
    func withdrawsOnFailure() async throws {
        let router = try makeRouter([
            ClosureTask(name: "Two") { (_: NoOptions, _: CallContext) in
                [Data(repeating: 1, count: 50), Data(repeating: 2, count: 500)]
            }
        ])
        let transfers = BinaryTransfers(
            router: router, limits: BinaryLimits(maxTransferBytes: 100, requestWait: 30, claimWait: 30))
        _ = InMemoryBinaryTransport(transfers: transfers)  // a view serves them
        let reply = await InMemoryPage(router: router).call("Two")
        #expect(reply["error"]?.string("code") == "payload_too_large", "\(reply)")
        #expect(transfers.heldBytes == 0, "the first download was withdrawn")
    }

    /// A new user made the transfers and forgot to give them to the web view's host: the page's
    /// request for the bytes failed `unavailable` while the app's log said `ok`. Until a view
    /// serves them, `Data` stays base64 text, as without transfers (and the first binary value a
    /// task sends or takes writes a line on standard error).
    @Test("transfers no web view serves leave plain Data as base64 text")
    func unservedTransfersKeepBase64() async throws {
        let router = try makeRouter([
            ClosureTask(name: "Bytes") { (_: NoOptions, _: CallContext) in Data([1, 2, 3]) }
        ])
        let transfers = BinaryTransfers(router: router)
        let page = InMemoryPage(router: router)
        let unserved = await page.call("Bytes")
        #expect(unserved["data"] == .string("AQID"), "\(unserved)")
        #expect(unserved["binary"] == nil)
        #expect(transfers.openTransfers == 0)
        _ = InMemoryBinaryTransport(transfers: transfers)
        let served = await page.call("Bytes")
        #expect(served["binary"]?.arrayValue?.count == 1, "\(served)")
    }

    @Test("without a byte transport, Data is a base64 string, as JSONEncoder writes it")
    func base64WithoutTransfers() async throws {
        let router = try makeRouter([
            ClosureTask(name: "Plain") { (_: NoOptions, _: CallContext) in Data([1, 2, 3]) }
        ])
        let reply = await InMemoryPage(router: router).call("Plain")
        #expect(reply["data"] == "AQID")
        #expect(reply["binary"] == nil)
    }

    @Test("a subframe's call gets base64 (the byte transport serves the main frame only)")
    func subframeBase64() async throws {
        let (page, transfers, _) = try Self.fixture()
        let reply = await page.call(
            "Plain", options: ["count": 3], from: MessageSource(origin: SecurityOrigin(appOrigin), isMainFrame: false),
            replyHandler: true)
        #expect(reply["data"] == "AAEC", "\(reply)")
        #expect(transfers.heldBytes == 0)
    }

    @Test("Data a task encodes for itself while it runs stays base64: only the call's messages write downloads")
    func ownEncodingUntouched() async throws {
        let (page, transfers, _) = try Self.fixture()
        let reply = await page.call("OwnJSON")
        #expect(reply["data"] == #"{"blob":"AQID"}"#)
        #expect(reply["binary"] == nil)
        #expect(transfers.heldBytes == 0)
    }

    @Test(
        "a Data field of the options reads base64; a binary value there is refused with a message naming BridgeBinary")
    func dataField() async throws {
        let (page, _, _) = try Self.fixture()
        let base64 = await page.call("DataField", options: ["data": "AQID"])
        #expect(base64["data"] == 3)
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 3, type: nil)
        let refused = await page.call("DataField", options: ["data": placeholder])
        #expect(refused["error"]?.string("code") == "invalid_options")
        let message = try #require(refused["error"]?.string("message"))
        #expect(message.contains("at data") && message.contains("BridgeBinary"), "\(message)")
        let notBase64 = await page.call("DataField", options: ["data": "not base64!"])
        #expect(notBase64["error"]?.string("code") == "invalid_options")
    }
}
