import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// The binary fixtures (Tests/Fixtures/binary), shared with js/test/binary.test.js.
@Suite("Binary values: fixtures")
struct BinaryFixtureTests {
    struct Fixture: Decodable {
        var direction: String
        var kind: String
        var description: String
        var message: JSONValue
    }

    static func load(_ name: String) throws -> Fixture {
        try BridgeJSON.decode(
            Fixture.self, from: Data(contentsOf: Repository.url("Tests/Fixtures/binary/\(name)")))
    }

    struct SaveOptions: Decodable {
        var name: String
        var photo: BridgeBinary
        var meta: JSONValue
    }

    @Test("call-with-binary: the placeholder decodes as a BridgeBinary; the look-alike stays JSON")
    func callFixture() throws {
        let fixture = try Self.load("call-with-binary.json")
        #expect(fixture.direction == "page-to-native" && fixture.kind == "call")
        let options = try BridgeJSON.decode(
            SaveOptions.self, from: BridgeJSON.encode(try #require(fixture.message["options"])))
        #expect(
            options.photo
                == BridgeBinary(token: "0f1e2d3c4b5a69788796a5b4c3d2e1f0", size: 3, type: "image/png"))
        #expect(options.meta == ["$bridgeBinary": "just data"])
        #expect(throws: DecodingError.self) {
            try BridgeJSON.decode(BridgeBinary.self, from: BridgeJSON.encode(options.meta))
        }
    }

    @Test("reply-with-binary: native writes exactly the fixture's placeholder")
    func nativeFixtures() async throws {
        let reply = try Self.load("reply-with-binary.json")
        let binary = BridgeBinary(token: "8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5", size: 3, type: "application/pdf")
        let written = try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(binary))
        #expect(written == reply.message["data"]?["file"])
    }

    /// A router whose task `Make` returns the fixture's data with `file` the bytes it offers.
    static func makingRouter(_ data: JSONValue) throws -> (BridgeRouter, BinaryTransfers) {
        let router = try makeRouter([])
        let transfers = BinaryTransfers(router: router)
        try router.register(
            ClosureTask(name: "Make") { (_: JSONValue, context: CallContext) -> JSONValue in
                let file = try await transfers.send(Data([1, 2, 3]), type: "application/pdf", context: context)
                var result = data
                if case .object(var members) = result {
                    members["file"] = try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(file))
                    result = .object(members)
                }
                return result
            })
        return (router, transfers)
    }

    @Test(
        "reply-with-envelope-tokens: a call's reply is the fixture's message, its token in the envelope, no event",
        arguments: [false, true])
    func envelopeFixture(replyHandler: Bool) async throws {
        let fixture = try Self.load("reply-with-envelope-tokens.json")
        #expect(fixture.direction == "native-to-page" && fixture.kind == "reply")
        let data = try #require(fixture.message["data"])
        let (router, _) = try Self.makingRouter(data)
        let page = InMemoryPage(router: router)
        let made = await page.call("Make", id: "k7f3q9x1-1", replyHandler: replyHandler)
        let token = try #require(made["data"]?["file"]?[BridgeBinary.placeholderKey]?.string("token"))
        #expect(page.messages.count == 1, "the reply only: no announcement event")
        var expected = fixture.message.objectValue ?? [:]
        expected["binary"] = [.string(token)]
        if case .object(var members) = data, case .object(var file) = members["file"],
            case .object(var placeholder) = file[BridgeBinary.placeholderKey]
        {
            placeholder["token"] = .string(token)
            file[BridgeBinary.placeholderKey] = .object(placeholder)
            members["file"] = .object(file)
            expected["data"] = .object(members)
        }
        #expect(made == .object(expected))
        #expect(fixture.message["binary"]?.arrayValue?.count == 1)
        #expect(fixture.message["data"]?["binary"] != nil, "the fixture's data has a binary member of its own")
    }

    @Test("announcement: bytes offered with no pending call are announced with exactly the fixture's event")
    func announcementFixture() async throws {
        let announcement = try Self.load("announcement.json")
        #expect(announcement.message.string("name") == BinaryTransfers.announcementEvent)
        let router = try makeRouter([])
        let transfers = BinaryTransfers(router: router)
        let page = InMemoryPage(router: router)
        let context = CallContext(
            callID: nil, taskName: "push", source: MessageSource(origin: SecurityOrigin(appOrigin), isMainFrame: true),
            pageGeneration: router.pageGeneration)
        let binary = try await transfers.send(Data([1, 2, 3]), type: "application/pdf", context: context)
        let event = try #require(page.messages.first)
        var expected = announcement.message.objectValue ?? [:]
        expected["data"] = ["tokens": [.string(binary.token)]]
        #expect(event == .object(expected))
    }
}
