import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Plain `Data` in an event reaches the page as a binary value, as in a result or progress: a
/// placeholder whose token rides the event's own envelope, for the document whose notice told an
/// origin the router admits (`pageDidAnnounceDocument(_:origin:)`). Before, an event's `Data` was
/// base64 text unless the app built a `CallContext` by hand with the page's origin (issue 26,
/// item 1: "`Data` in a result, progress or event arrives in the page as a `Uint8Array`").
@Suite("Binary values: plain Data in events")
struct BinaryEventDataTests {
    struct Photo: Encodable, Sendable {
        var photo: Data
        var name: String
    }

    static let document = "3f9a0c1d2e4b5a6978c0d1e2f3a4b5c6"
    static let otherDocument = "0123456789abcdef0123456789abcdef"

    static func fixture(limits: BinaryLimits = BinaryLimits(requestWait: 30, claimWait: 30)) throws -> (
        BridgeRouter, InMemoryPage, BinaryTransfers, InMemoryBinaryTransport
    ) {
        let (page, transfers, transport, _) = try BinaryTransfersTests.fixture(limits: limits)
        return (page.router, page, transfers, transport)
    }

    static func token(_ value: JSONValue?) -> String? { value?[BridgeBinary.placeholderKey]?.string("token") }

    @Test("event-with-envelope-tokens: an event's Data is the fixture's placeholder, its token in the event's envelope")
    func fixtureShape() async throws {
        let fixture = try BinaryFixtureTests.load("event-with-envelope-tokens.json")
        #expect(fixture.direction == "native-to-page" && fixture.kind == "event")
        let (router, page, _, transport) = try Self.fixture()
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        let echo = try #require(fixture.message["data"]?["echo"])
        let echoed = try #require(fixture.message["data"]?["binary"])
        try await router.emit("camera.photo", data: EventWithEcho(photo: Data([1, 2, 3]), echo: echo, binary: echoed))
        let event = try #require(page.messages.last)
        let token = try #require(Self.token(event["data"]?["photo"]), "\(event)")
        var expected = try #require(fixture.message.objectValue)
        expected["binary"] = [.string(token)]
        expected["data"]?.replaceToken(with: token)
        #expect(event == .object(expected))
        #expect(await transport.download(token).body == Data([1, 2, 3]))
    }

    struct EventWithEcho: Encodable, Sendable {
        var photo: Data
        var echo: JSONValue
        var binary: JSONValue
    }

    @Test("an event's Data for an admitted origin is a download the page fetches once, from that origin only")
    func admittedOrigin() async throws {
        let (router, page, transfers, transport) = try Self.fixture()
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        try await router.emit("camera.photo", data: Photo(photo: Data([9, 8, 7, 6]), name: "a.jpg"))
        let event = try #require(page.messages.last)
        let token = try #require(Self.token(event["data"]?["photo"]), "\(event)")
        #expect(event["binary"] == [.string(token)])
        #expect(event["data"]?["name"] == "a.jpg")
        #expect(event["data"]?["photo"]?[BridgeBinary.placeholderKey]?["size"] == 4)
        #expect(transfers.heldBytes == 4)
        #expect(await transport.download(token, origin: "https://evil.example").status == 403)
        #expect(await transport.download(token).body == Data([9, 8, 7, 6]))
        #expect(await transport.download(token).status == 404, "a token works once")
        #expect(transfers.heldBytes == 0)
    }

    @Test(
        "an event's Data is base64 text, holding nothing, when no admitted origin is known for the document",
        arguments: ["no notice", "no origin", "other origin", "after a commit"])
    func base64Otherwise(_ case: String) async throws {
        let (router, page, transfers, _) = try Self.fixture()
        switch `case` {
        case "no notice": break
        case "no origin": router.pageDidAnnounceDocument(Self.document)
        case "other origin":
            router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin("https://evil.example"))
        default:
            router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
            router.pageDidCommitNavigation()
        }
        try await router.emit("camera.photo", data: Photo(photo: Data([1, 2, 3]), name: "b"))
        let event = try #require(page.messages.last)
        #expect(event["data"]?["photo"] == "AQID", "\(`case`): \(event)")
        #expect(event["binary"] == nil)
        #expect(transfers.heldBytes == 0)
    }

    @Test("a task's own policy that admits any origin does not make another origin's document get an event's bytes")
    func taskPolicyDoesNotCount() async throws {
        let (router, page, transfers, _) = try Self.fixture()
        try router.register(
            ClosureTask(name: "Anyone", policy: .anyOrigin(allowsSubframes: true)) { (_: NoOptions, _: CallContext) in
                "hi"
            })
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin("https://evil.example"))
        try await router.emit("camera.photo", data: Data([1, 2, 3]))
        #expect(page.messages.last?["data"] == "AQID")
        #expect(transfers.heldBytes == 0)
    }

    @Test("a later notice of the same document keeps its origin; another document's notice brings its own")
    func originFollowsTheDocument() async throws {
        let (router, page, _, _) = try Self.fixture()
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        router.pageDidAnnounceDocument(Self.document)  // a back-forward restore, told again
        try await router.emit("e", data: Data([1]))
        #expect(Self.token(page.messages.last?["data"]) != nil, "\(String(describing: page.messages.last))")
        router.pageDidAnnounceDocument(Self.otherDocument)  // another document, no origin told
        try await router.emit("e", data: Data([1]))
        #expect(page.messages.last?["data"] == "AQ==")
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        try await router.emit("e", data: Data([1]))
        #expect(Self.token(page.messages.last?["data"]) != nil)
    }

    @Test("an event's Data over the transfer limit throws payload_too_large and holds nothing; the page gets nothing")
    func overLimit() async throws {
        let (router, page, transfers, _) = try Self.fixture(
            limits: BinaryLimits(maxTransferBytes: 10, requestWait: 30, claimWait: 30))
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        let before = page.messages.count
        do {
            try await router.emit("e", data: [Data(count: 5), Data(count: 11)])
            Issue.record("the event was sent")
        } catch let error as BridgeError {
            #expect(error.code == "payload_too_large")
        }
        #expect(page.messages.count == before)
        #expect(transfers.heldBytes == 0, "the first download was withdrawn")
    }

    @Test("an event over the message limit withdraws the downloads it wrote")
    func overMessageLimit() async throws {
        var limits = BridgeLimits()
        limits.maxPayloadBytes = 200
        let router = try makeRouter([], limits: limits)
        let transfers = BinaryTransfers(router: router, limits: BinaryLimits(requestWait: 30, claimWait: 30))
        _ = InMemoryBinaryTransport(transfers: transfers)
        let page = InMemoryPage(router: router)
        router.pageDidAnnounceDocument(Self.document, origin: SecurityOrigin(appOrigin))
        do {
            try await router.emit("e", data: Photo(photo: Data([1]), name: String(repeating: "x", count: 300)))
            Issue.record("the event was sent")
        } catch let error as BridgeError {
            #expect(error.code == "payload_too_large")
        }
        #expect(page.messages.isEmpty)
        #expect(transfers.heldBytes == 0)
    }
}

extension JSONValue {
    /// Replaces the token of the placeholder at `photo` with `token` (the fixture's is made up).
    fileprivate mutating func replaceToken(with token: String) {
        guard case .object(var members) = self, case .object(var photo) = members["photo"],
            case .object(var placeholder) = photo[BridgeBinary.placeholderKey]
        else { return }
        placeholder["token"] = .string(token)
        photo[BridgeBinary.placeholderKey] = .object(placeholder)
        members["photo"] = .object(photo)
        self = .object(members)
    }
}
