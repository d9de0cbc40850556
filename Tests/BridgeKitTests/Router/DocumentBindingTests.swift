import BridgeKit
import BridgeKitTesting
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// Kind of fault: a script reaching a document other than the one it was written for. The router
/// checks the page generation and then hands a script to the engine; the engine runs it in
/// whatever document is on screen when it arrives, so progress, events and native-to-page calls
/// on their way when another document committed were read by that document (any origin: one a
/// third-party frame navigated the top to), found by attacking page changes in WebKitGTK. Scripts
/// of a generation whose document a notice named are now bound to that document, and a notice of
/// the document already on screen (a restore reported as a commit too) ends no calls.
@Suite("Router: scripts bound to the document that a notice named")
struct DocumentBindingTests {
    static let documentA = String(repeating: "a1", count: 16)
    static let documentB = String(repeating: "b2", count: 16)

    /// A task that waits until the test opens it.
    final class GateTask: BridgeTask, @unchecked Sendable {
        let name = "gate"
        let open = Atomic<Bool>(false)
        func run(_ options: NoOptions, context: CallContext) async throws -> String {
            while !open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            return "done"
        }
    }

    @Test("The first notice after a commit names the document: no new generation, its calls go on")
    func firstNoticeNames() async throws {
        let task = GateTask()
        let router = try makeRouter([task])
        let page = InMemoryPage(router: router)
        router.pageDidCommitNavigation()
        let id = try #require(page.send("gate"))
        router.pageDidAnnounceDocument(Self.documentA)
        #expect(router.pageGeneration == 1)
        router.pageDidAnnounceDocument(Self.documentA)
        #expect(router.pageGeneration == 1, "the same document again (a restore reported as a commit too)")
        task.open.store(true, ordering: .releasing)
        #expect(await page.reply(for: id)["data"] == "done")
    }

    @Test("A notice of another document, or one naming no document id, starts a new generation")
    func otherDocument() throws {
        let router = try makeRouter()
        router.pageDidAnnounceDocument(Self.documentA)
        #expect(router.pageGeneration == 0)
        router.pageDidAnnounceDocument(Self.documentB)
        #expect(router.pageGeneration == 1)
        for bad in [
            "", "B2" + String(Self.documentB.dropFirst(2)), Self.documentB + "0", "\"});alert(1);//" + Self.documentA,
        ] {
            router.pageDidAnnounceDocument(bad)
        }
        #expect(router.pageGeneration == 5)
    }

    @Test("Scripts of a named document go to the notice's world, bound to it; unnamed ones to the page world")
    func binding() async throws {
        let router = try makeRouter()
        let recording = RecordingChannel()
        router.connect(recording.channel)
        try await router.emit("before", data: "x")
        router.pageDidAnnounceDocument(Self.documentA)
        try await router.emit("named", data: ["s": "</script>\u{2028}"])

        let page = recording.page.withLock { $0 }
        let bound = recording.document.withLock { $0 }
        #expect(page.count == 1 && bound.count == 1)
        let function = try #require(PageFunction.deliver(toDocument: Self.documentA))
        let script = try #require(bound.first)
        #expect(script.hasPrefix(function.source + "("))
        #expect(script.hasSuffix(");void 0"))
        #expect(!script.contains("</script") && !script.contains("\u{2028}"), "the same embedding as every script")
        #expect(page.allSatisfy { $0.hasPrefix(PageFunction.receive.source) })
    }

    @Test("Only a document id is ever written into a script")
    func functionTakesIDsOnly() {
        #expect(PageFunction.deliver(toDocument: Self.documentA) != nil)
        #expect(PageFunction.deliver(toDocument: "\");alert(1);//") == nil)
        #expect(PageFunction.deliver(toDocument: String(repeating: "A", count: 32)) == nil)
        #expect(PageFunction.deliver(toDocument: String(repeating: "a", count: 31)) == nil)
    }

    /// Eval-level: the real notice script (`js/webbridge-document.js`, in node) and a script the
    /// router bound: its own document gets the message as JSON text, another document nothing.
    @Test("A bound script reaches the page of its own document, byte for byte, and no other (evaluated in node)")
    func evaluated() async throws {
        let router = try makeRouter()
        let recording = RecordingChannel()
        router.connect(recording.channel)
        router.pageDidAnnounceDocument(Self.documentA)
        let data: JSONValue = ["text": "Line one\nIt's \"two\" </script> \u{2028} 😀"]
        try await router.emit("news", data: data)
        let script = try #require(recording.document.withLock { $0.first })
        let program = """
            const fs = require('fs');
            const vm = require('vm');
            const got = [];
            function makeWindow() {
              const target = new EventTarget();
              const win = { addEventListener: target.addEventListener.bind(target), dispatchEvent: target.dispatchEvent.bind(target),
                CustomEvent, crypto: require('crypto').webcrypto };
              win.webkit = { messageHandlers: { webbridgeDocument: { postMessage(t) { win.notice = JSON.parse(t); } } } };
              win.addEventListener('webbridge:message', (e) => got.push(e.detail));
              win.window = win;
              return win;
            }
            const source = fs.readFileSync(process.argv[2], 'utf8');
            const script = \(try String(decoding: JSONEncoder().encode(script), as: UTF8.self));
            const results = [];
            for (const own of [true, false]) {
              const win = makeWindow();
              vm.runInNewContext(source, win);
              const id = win.notice.document;
              // The document of the script is documentA; make this window that document or another one.
              const text = own ? script.split(\(try String(decoding: JSONEncoder().encode(Self.documentA), as: UTF8.self))).join(id) : script;
              got.length = 0;
              vm.runInNewContext(text, win);
              results.push(got.slice());
            }
            process.stdout.write(JSON.stringify(results));
            """
        let output = try NodeJS.run(program, stdin: WebBridgeDocumentNotice.source)
        let results = try JSONDecoder().decode([[String]].self, from: Data(output.utf8))
        #expect(results.count == 2)
        let delivered = try #require(results.first?.first)
        let message = try JSONDecoder().decode(JSONValue.self, from: Data(delivered.utf8))
        #expect(message == ["v": 1, "kind": "event", "name": "news", "data": data])
        #expect(results.last == [], "another document's notice world drops it")
    }
}
