#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd.Bridgehost {
    /// Bytes in a mock's reply, progress and events (`{"$bridgeBinary": {"base64": …}}` or
    /// `{"file": …}`) reach the page as the app's `Data` would: `Uint8Array`s through the byte
    /// transport, each progress value before the reply (a new user's finding: mocks could not
    /// return bytes).
    @Test(
        "a mock's bytes (base64 or a file) reach the page as Uint8Arrays, in its reply, progress and events, progress first",
        .timeLimit(.minutes(1)))
    func mockedBytes() async throws {
        let folder = try TemporaryFolder([
            "index.html": """
            <!doctype html><script>
            (async function () {
              const seen = [];
              const events = [];
              WebBridge.on("photo.saved", (e) => events.push(e.thumb));
              const r = await WebBridge.call("Photo.take", {}, { onProgress: (p) => seen.push(p.preview) });
              const bytes = (v) => v instanceof Uint8Array ? Array.from(v).join() : "not bytes: " + typeof v;
              await new Promise((done) => { const check = () => events.length ? done() : setTimeout(check, 10); check(); });
              const summary = [bytes(r.photo), bytes(r.list[1]), String(r.list[0]), r.name, seen.map(bytes).join("|"),
                events.map(bytes).join("|")];
              await WebBridge.call("bridgehost.done", { ok: true, summary });
            })();
            </script>
            """,
            "photo/hi.txt": "hi\u{e9}",
            "mocks.json": """
            {"Photo.take": {
              "reply": {"name": "a.png", "photo": {"$bridgeBinary": {"base64": "iVBORw=="}},
                        "list": [1, {"$bridgeBinary": {"file": "photo/hi.txt"}}]},
              "progress": [{"preview": {"$bridgeBinary": {"base64": "AAE="}}}, {"preview": {"$bridgeBinary": {"base64": ""}}}],
              "events": [{"name": "photo.saved", "data": {"thumb": {"$bridgeBinary": {"base64": "BwgJ"}}}}]}}
            """,
        ])
        defer { folder.remove() }
        let outcome = try await ToolProcess.run(
            "bridgehost", [folder.path("index.html"), "--mock", folder.path("mocks.json"), "--json"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let summary = try #require(outcome.jsonLines.first { $0["event"] == "summary" })
        #expect(summary["summary"] == ["137,80,78,71", "104,105,195,169", "1", "a.png", "0,1|", "7,8,9"])
        let listing = try await ToolProcess.run(
            "bridgehost", ["--list-tasks", "--mock", folder.path("mocks.json"), "--json"])
        let mock = listing.jsonLines.first { $0["task"] == "Photo.take" }?["mock"]?.stringValue ?? ""
        #expect(mock.contains(#"{"$bridgeBinary":{"bytes":4}}"#), "\(listing.stdout)")
    }

    @Test(
        "a mock's bytes that cannot be read are refused when the file loads, naming the entry", .timeLimit(.minutes(1)))
    func badMockBytes() async throws {
        let folder = try TemporaryFolder([
            "base64.json": #"{"A": {"reply": {"$bridgeBinary": {"base64": "not base64!"}}}}"#,
            "missing.json": #"{"B": {"reply": [{"$bridgeBinary": {"file": "nowhere.bin"}}]}}"#,
            "extra.json": #"{"C": {"reply": {"$bridgeBinary": {"base64": "AA=="}, "name": "x"}}}"#,
            "both.json": #"{"D": {"progress": [{"$bridgeBinary": {"base64": "AA==", "file": "x"}}], "reply": 1}}"#,
            "event.json":
                #"{"E": {"reply": 1, "events": [{"name": "got", "data": {"$bridgeBinary": {"base64": "A"}}}]}}"#,
        ])
        defer { folder.remove() }
        let expected = [
            "base64.json": #"entry "A": "reply": "$bridgeBinary.base64" is not base64"#,
            "missing.json": #"entry "B": "reply": "$bridgeBinary.file" "#,
            "extra.json": #"entry "C": "reply": an object with "$bridgeBinary" stands for bytes"#,
            "both.json": #"entry "D": "progress" step 1: "$bridgeBinary" must be"#,
            "event.json": #"entry "E": event "got": "$bridgeBinary.base64" is not base64"#,
        ]
        for (file, message) in expected.sorted(by: { $0.key < $1.key }) {
            let outcome = try await ToolProcess.run("bridgehost", ["--list-tasks", "--mock", folder.path(file)])
            #expect(outcome.status == 2, "\(file)")
            #expect(outcome.stderr.contains(message), "\(file): \(outcome.stderr)")
        }
    }
}
#endif
