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

    @Test("reply-with-binary and announcement: native writes exactly the fixture's placeholder and event")
    func nativeFixtures() async throws {
        let reply = try Self.load("reply-with-binary.json")
        let binary = BridgeBinary(token: "8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5", size: 3, type: "application/pdf")
        let written = try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(binary))
        #expect(written == reply.message["data"]?["file"])

        let announcement = try Self.load("announcement.json")
        #expect(announcement.message.string("name") == BinaryTransfers.announcementEvent)
        // The router's own announcement for a download has the fixture's shape.
        let router = try makeRouter([])
        let transfers = BinaryTransfers(router: router)
        try router.register(
            ClosureTask(name: "Make") { (_: JSONValue, context: CallContext) -> BridgeBinary in
                try await transfers.send(Data([1, 2, 3]), type: "application/pdf", context: context)
            })
        let page = InMemoryPage(router: router)
        let made = await page.call("Make")
        let token = try #require(made["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let event = try #require(page.messages.first)
        var expected = announcement.message
        expected = ["v": 1, "kind": "event", "name": expected["name"] ?? .null, "data": ["tokens": [.string(token)]]]
        #expect(event == expected)
    }
}
