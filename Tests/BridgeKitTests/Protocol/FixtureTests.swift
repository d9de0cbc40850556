import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Testing

/// One protocol fixture: the normative example of a message kind, shared with the JS tests.
struct ProtocolFixture: Decodable, Sendable, CustomTestStringConvertible {
    let direction: String
    let kind: String
    let description: String
    let message: JSONValue
    var file = ""
    var testDescription: String { file }

    private enum CodingKeys: String, CodingKey { case direction, kind, description, message }

    static func all() throws -> [ProtocolFixture] {
        let folder = Repository.url("Tests/Fixtures/protocol")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        return try files.map { file in
            var fixture = try BridgeJSON.decode(
                ProtocolFixture.self, from: Data(contentsOf: folder.appendingPathComponent(file)))
            fixture.file = file
            return fixture
        }
    }
}

/// Kind of fault: the two sides of the bridge drift apart. Both the Swift and the JS tests load
/// the same fixture files.
@Suite("Protocol v1 fixtures: Swift and JS agree")
struct FixtureTests {
    static let fixtures = (try? ProtocolFixture.all()) ?? []

    @Test("Every message kind of the protocol has a fixture")
    func coverage() {
        let kinds = Set(Self.fixtures.map { "\($0.direction):\($0.kind)" })
        for expected in [
            "page-to-native:call", "page-to-native:cancel", "page-to-native:reply", "native-to-page:reply",
            "native-to-page:progress", "native-to-page:event", "native-to-page:call", "native-to-page:cancel",
            "native-to-page:tasks",
        ] {
            #expect(kinds.contains(expected), "missing \(expected)")
        }
    }

    @Test(
        "The router accepts every page-to-native fixture",
        arguments: fixtures.filter { $0.direction == "page-to-native" })
    func pageToNative(fixture: ProtocolFixture) async throws {
        let tasks: [any BridgeTask] = ["cart.add", "analytics.track", "login", "History"].map { name in
            ClosureTask(name: name) { (options: JSONValue, _: CallContext) in options }
        }
        let router = try makeRouter(tasks)
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.post(fixture.message)
        #expect(await eventually { !log.all.isEmpty })
        let first = try #require(log.all.first)
        #expect(first.outcome != "invalid_message" && first.outcome != "unknown_task", "\(fixture.file): \(first)")
        if fixture.kind == "call", let id = fixture.message.string("id") ?? fixture.message.string("callbackId") {
            #expect(await page.reply(for: id)["data"] == fixture.message["options"])
        }
    }

    @Test("The router writes native-to-page messages exactly like the fixtures")
    func nativeToPage() async throws {
        let byFile = Dictionary(uniqueKeysWithValues: Self.fixtures.map { ($0.file, $0.message) })
        let count = ClosureTask(name: "count") { (_: NoOptions, context: CallContext) -> JSONValue in
            try await context.progress(["pct": 10] as JSONValue)
            return ["count": 3]
        }
        let none = ClosureTask(name: "none") { (_: NoOptions, _: CallContext) in NoResult() }
        let router = try makeRouter([count])
        let page = InMemoryPage(router: router)
        _ = await page.call("count", id: "k7f3q9x1-1")
        #expect(
            page.messages(for: "k7f3q9x1-1") == [byFile["progress.json"], byFile["reply-ok.json"]].compactMap { $0 })
        _ = router.replace(none)
        // The new task list reaches the connected page on a task of its own: wait for it, so it
        // does not land between the messages compared below.
        #expect(await eventually { page.messages.contains { $0["kind"] == "tasks" } })
        let none1 = InMemoryPage(router: try makeRouter([none]))
        #expect(await none1.call("none", id: "k7f3q9x1-1") == byFile["reply-ok-null.json"])
        let missing = InMemoryPage(router: try makeRouter())
        #expect(await missing.call("geo.lookup", id: "k7f3q9x1-1") == byFile["reply-error.json"])
        try await router.emit("cart.updated", data: ["count": 3] as JSONValue)
        #expect(page.messages.last == byFile["event.json"])
        let call = Task {
            try await router.callPage(
                "page.title", options: ["format": "plain"] as JSONValue, timeout: .milliseconds(50))
        }
        #expect(await eventually { page.messages.contains { $0["kind"] == "call" } })
        #expect(Self.untagged(page.messages.last) == byFile["native-call.json"])
        _ = try? await call.value
        #expect(await eventually { page.messages.last?["kind"] == "cancel" })
        #expect(Self.untagged(page.messages.last) == byFile["native-cancel.json"])
    }

    /// `message` with its native-to-page call id `n-<k>-<tag>` written as the fixtures write it,
    /// `n-<k>` (the tag is six random hexadecimal digits per router); any other message unchanged.
    static func untagged(_ message: JSONValue?) -> JSONValue? {
        guard case .object(var members)? = message, case .string(let id)? = members["id"],
            let tag = id.range(of: "-[0-9a-f]{6}$", options: .regularExpression)
        else { return message }
        members["id"] = .string(String(id[..<tag.lowerBound]))
        return .object(members)
    }

    @Test("The embedded page scripts are byte-identical to js/")
    func embeddedScripts() throws {
        #expect(Array(WebBridgeShim.source.utf8) == Array(try Repository.data("js/webbridge.js")))
        #expect(Array(WebBridgeRelay.source.utf8) == Array(try Repository.data("js/webbridge-relay.js")))
        #expect(Array(WebBridgeDocumentNotice.source.utf8) == Array(try Repository.data("js/webbridge-document.js")))
    }

    @Test("The document notice posts to the handler hosts register (WebBridgeDocumentNotice.handlerName)")
    func documentNoticeHandlerName() throws {
        // The notice script runs in node on a window whose every handler name records the post.
        let program = """
            const posted = [];
            const handlers = new Proxy({}, { get: (_, name) => ({ postMessage: () => { posted.push(String(name)); } }) });
            const win = { webkit: { messageHandlers: handlers }, addEventListener() {} };
            const { announceDocuments } = require(process.argv[2]);
            announceDocuments({ window: win });
            process.stdout.write(JSON.stringify(posted));
            """
        let output = try NodeJS.run(program, stdin: WebBridgeDocumentNotice.source)
        #expect(output == "[\"\(WebBridgeDocumentNotice.handlerName)\"]")
    }

    @Test("docs/protocol.md lists every built-in error code")
    func errorCodesDocumented() throws {
        let doc = String(decoding: try Repository.data("docs/protocol.md"), as: UTF8.self)
        for code in BridgeError.builtInCodes {
            #expect(doc.contains("`\(code)`"), "docs/protocol.md does not mention \(code)")
        }
    }
}
