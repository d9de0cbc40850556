#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// bridgehost as the front-end developer's tool (issue 24 item 1), run as a child process
    /// against pages of the test's own, in real WebKitGTK.
    @MainActor
    @Suite("bridgehost")
    struct Bridgehost {
        static let mocks = """
            {
              "Cart.add": {"reply": {"count": 2}},
              "Cart.pay": {"error": {"code": "declined", "message": "Card declined"}},
              "Sync": {"reply": "done", "delayMs": 200, "progress": [{"percent": 50}, {"percent": 100}], "version": "2.1"},
              "Cart.clear": {"reply": null, "events": [{"name": "cart.updated", "data": {"count": 0}}, {"name": "cart.cleared"}]}
            }
            """

        /// A page in its own folder whose script is a relative `app.js`.
        static func shop(_ script: String) throws -> TemporaryFolder {
            try TemporaryFolder([
                "index.html":
                    "<!doctype html><title>Shop</title><link rel=stylesheet href=css/style.css><script src=app.js></script>",
                "css/style.css": "body { background: #123456; }",
                "app.js": script,
                "mocks.json": mocks,
            ])
        }

        static func lines(_ outcome: ToolProcess.Outcome, kind: String, task: String, direction: String) -> [JSONValue]
        {
            outcome.jsonLines.filter {
                $0["kind"]?.stringValue == kind && $0["task"]?.stringValue == task
                    && $0["direction"]?.stringValue == direction
            }
        }

        @Test(
            "a local page with a relative script gets mocked replies, errors, delays and progress; payloads, console and uncaught errors are logged",
            .timeLimit(.minutes(1)))
        func mockedSession() async throws {
            let folder = try Self.shop(
                """
                (async function () {
                  console.log("app.js loaded from", location.origin === "null" ? "nowhere" : "its folder");
                  const cart = await WebBridge.call("Cart.add", { sku: "A1", qty: 2 });
                  const heard = [];
                  WebBridge.on("cart.updated", (data) => heard.push("updated " + data.count));
                  WebBridge.on("cart.cleared", (data) => heard.push("cleared " + data));
                  await WebBridge.call("Cart.clear", {});
                  const steps = [];
                  const sync = await WebBridge.call("Sync", {}, { onProgress: (p) => steps.push(p.percent) });
                  await WebBridge.call("bridgehost.expectError", { code: "declined" });
                  let code = null;
                  try { await WebBridge.call("Cart.pay", { total: 42 }); } catch (e) { code = e.code; }
                  const styled = getComputedStyle(document.body).backgroundColor;
                  setTimeout(function () { notDefinedAnywhere(); }, 0);
                  await new Promise((resolve) => setTimeout(resolve, 100));
                  const versions = [WebBridge.supports("Sync", "2"), WebBridge.supports("Sync", "3"), WebBridge.supports("Cart.add", "1")];
                  await WebBridge.call("bridgehost.done", { ok: cart.count === 2 && sync === "done" && steps.join() === "50,100" && code === "declined"
                                                              && heard.join() === "updated 0,cleared null" && versions.join() === "true,false,false",
                                                            summary: ["styled " + styled] });
                })();
                """)
            defer { folder.remove() }
            let started = Date()
            let outcome = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--mock", folder.path("mocks.json"), "--json"])
            #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
            let call = try #require(Self.lines(outcome, kind: "call", task: "Cart.add", direction: "in").first)
            #expect(call["payload"] == ["qty": 2, "sku": "A1"])
            let reply = try #require(Self.lines(outcome, kind: "reply", task: "Cart.add", direction: "out").first)
            #expect(reply["payload"] == ["count": 2])
            #expect(reply["outcome"] == "ok")
            #expect(
                Self.lines(outcome, kind: "progress", task: "Sync", direction: "out").map { $0["payload"] } == [
                    ["percent": 50], ["percent": 100],
                ])
            let error = try #require(Self.lines(outcome, kind: "reply", task: "Cart.pay", direction: "out").first)
            #expect(error["outcome"] == "declined")
            #expect(error["payload"]?["message"] == "Card declined")
            let console = outcome.jsonLines.filter { $0["event"] == "console" }
            #expect(console.contains { $0["message"] == "app.js loaded from its folder" })
            let pageErrors = outcome.jsonLines.filter { $0["event"] == "pageError" }
            #expect(
                pageErrors.contains {
                    ($0["message"]?.stringValue ?? "").contains("notDefinedAnywhere") && $0["kind"] == "uncaught"
                })
            let summary = try #require(outcome.jsonLines.first { $0["event"] == "summary" })
            #expect(summary["pageOK"] == true)
            #expect(summary["summary"] == ["styled rgb(18, 52, 86)"], "the relative stylesheet loaded")
            #expect(summary["pageErrors"] == 1)
            #expect(Date().timeIntervalSince(started) < 20)

            // The same page with --strict fails because of its uncaught error.
            let strict = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--mock", folder.path("mocks.json"), "--json", "--strict"])
            #expect(strict.status == 1)
        }

        @Test("a mock file with a bad entry is refused when it loads, naming the entry", .timeLimit(.minutes(1)))
        func badMockFile() async throws {
            let folder = try TemporaryFolder([
                "bad.json": #"{"Cart.add": {"reply": 1}, "Cart.pay": {"error": {"message": "no code"}}}"#,
                "typo.json": #"{"Sync": {"replay": "done"}}"#,
                "broken.json": #"{"Sync": "#,
                "comma.json": #"{"Sync": {"reply": 1},}"#,
                "event.json": #"{"Cart.clear": {"reply": null, "events": [{"nam": "cart.updated"}]}}"#,
                "version.json": #"{"Scan": {"reply": null, "version": 2}}"#,
                "index.html": "<title>x</title>",
            ])
            defer { folder.remove() }
            let bad = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--mock", folder.path("bad.json")])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("entry \"Cart.pay\"") && bad.stderr.contains("error.code"), "\(bad.stderr)")
            let typo = try await ToolProcess.run("bridgehost", ["--list-tasks", "--mock", folder.path("typo.json")])
            #expect(typo.status == 2)
            #expect(typo.stderr.contains("entry \"Sync\": unknown key \"replay\""), "\(typo.stderr)")
            let broken = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--mock", folder.path("broken.json")])
            #expect(broken.status == 2)
            #expect(broken.stderr.contains("is not valid JSON"), "\(broken.stderr)")
            // Foundation's decoder takes a trailing comma; the file is still not JSON, and it names
            // no member twice (a new user's trial: it was reported as a duplicate).
            let comma = try await ToolProcess.run("bridgehost", ["--list-tasks", "--mock", folder.path("comma.json")])
            #expect(comma.status == 2)
            #expect(
                comma.stderr.contains("is not valid JSON") && !comma.stderr.contains("twice"), "\(comma.stderr)")
            let event = try await ToolProcess.run("bridgehost", ["--list-tasks", "--mock", folder.path("event.json")])
            #expect(event.status == 2)
            #expect(event.stderr.contains("entry \"Cart.clear\": \"events\" must be"), "\(event.stderr)")
            let version = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--mock", folder.path("version.json")])
            #expect(version.status == 2)
            #expect(version.stderr.contains("entry \"Scan\": \"version\" must be"), "\(version.stderr)")
        }

        @Test(
            "a mistyped --allow-origin (no scheme, a wildcard in the wrong place) is refused before anything loads",
            .timeLimit(.minutes(1)))
        func mistypedAllowOrigin() async throws {
            for origin in ["app.example", "https://app.*.com"] {
                let run = try await ToolProcess.run("bridgehost", ["--list-tasks", "--allow-origin", origin])
                #expect(run.status == 2, "\(origin): \(run.stderr)")
                #expect(run.stderr.contains("--allow-origin") && run.stderr.contains(origin), "\(run.stderr)")
            }
            let good = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--allow-origin", "https://app.example"])
            #expect(good.status == 0, "\(good.stderr)")
        }

        /// Found by a front-end developer trying the tool: a call the page cancelled itself counted as
        /// an unannounced error, so `--strict` failed a page that did everything right, and the
        /// summary did not say which call it held against it.
        @Test(
            "--strict: the page's own cancels and time-outs are no errors; the summary names the unannounced ones",
            .timeLimit(.minutes(1)))
        func strictCountsOnlyRealErrors() async throws {
            let page = { (fails: Bool) in
                """
                (async function () {
                  const controller = new AbortController();
                  const cancelled = WebBridge.call("Sync", {}, { signal: controller.signal }).catch((e) => e.code);
                  controller.abort();
                  const timedOut = await WebBridge.call("Sync", {}, { timeout: 20 }).catch((e) => e.code);
                  const codes = [await cancelled, timedOut];
                  if (\(fails)) { await WebBridge.call("Cart.pay", {}).catch(() => null); }
                  await WebBridge.call("bridgehost.done", { ok: codes.join() === "cancelled,timeout", summary: codes });
                })();
                """
            }
            let folder = try Self.shop(page(false))
            defer { folder.remove() }
            let failingFolder = try Self.shop(page(true))
            defer { failingFolder.remove() }
            let clean = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--mock", folder.path("mocks.json"), "--json", "--strict"])
            let summary = try #require(clean.jsonLines.first { $0["event"] == "summary" })
            #expect(clean.status == 0, "\(summary)")
            #expect(summary["summary"] == ["cancelled", "timeout"])
            #expect(summary["unexpectedErrors"] == 0)

            let failing = try await ToolProcess.run(
                "bridgehost",
                [failingFolder.path("index.html"), "--mock", folder.path("mocks.json"), "--json", "--strict"])
            let named = try #require(failing.jsonLines.first { $0["event"] == "summary" })
            #expect(failing.status == 1)
            #expect(named["unexpectedErrors"] == 1)
            let replies = named["unexpectedReplies"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(
                replies.count == 1 && replies[0].hasPrefix("Cart.pay #") && replies[0].hasSuffix(" declined"),
                "\(replies)")
        }

        @Test(
            "--list-tasks lists stock, mocked and control tasks; --help documents the control tasks",
            .timeLimit(.minutes(1)))
        func listTasksAndHelp() async throws {
            let folder = try Self.shop("")
            defer { folder.remove() }
            let list = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--mock", folder.path("mocks.json"), "--json"])
            #expect(list.status == 0)
            let sources = Dictionary(
                uniqueKeysWithValues: list.jsonLines.compactMap { line in
                    line["task"]?.stringValue.map { ($0, line["source"]?.stringValue ?? "") }
                })
            #expect(sources["Cart.add"] == "mock")
            #expect(sources["Sync"] == "mock")
            #expect(sources["Cart.clear"] == "mock")
            #expect(sources["Alert"] == "stock")
            #expect(sources["Echo"] == "stock")
            #expect(sources["bridgehost.done"] == "bridgehost")
            #expect(sources["File.save"] == "stock" && sources["File.open"] == "stock", "the File tasks are listed")
            let help = try await ToolProcess.run("bridgehost", ["--help"])
            #expect(help.status == 0)
            for text in [
                "bridgehost.done", "bridgehost.expectError", "--mock", "--window", "--alert-choice", "--payload-limit",
                "--list-tasks", "--json",
            ] {
                #expect(help.stdout.contains(text), "--help mentions \(text)")
            }
        }

        @Test(
            "a page that does not load (HTTP 404, connection refused) is reported at once and exits 3",
            .timeLimit(.minutes(1)))
        func failedLoads() async throws {
            let server = try LoopbackServer()
            let origin = server.origin
            let started = Date()
            let missing = try await ToolProcess.run("bridgehost", [origin + "/missing.html", "--json"])
            server.stop()
            #expect(missing.status == 3)
            #expect(
                missing.jsonLines.contains {
                    $0["event"] == "loadFailed" && ($0["error"]?.stringValue ?? "").contains("404")
                }, "\(missing.stdout)")
            // The server is gone: its port now refuses connections.
            let refused = try await ToolProcess.run("bridgehost", [origin + "/index.html", "--json"])
            #expect(refused.status == 3)
            #expect(refused.jsonLines.contains { $0["event"] == "loadFailed" }, "\(refused.stdout)")
            #expect(Date().timeIntervalSince(started) < 25, "both runs end long before the 30 s page timeout")
        }

        @Test(
            "--alert-choice picks a button by index or title; --payload-limit truncates payloads",
            .timeLimit(.minutes(1)))
        func alertChoiceAndPayloadLimit() async throws {
            let folder = try Self.shop(
                """
                (async function () {
                  const chosen = await WebBridge.call("Alert", { title: "Pick", buttons: ["Cancel", "OK", "Later"] });
                  await WebBridge.call("Echo", { text: "x".repeat(1000) });
                  await WebBridge.call("bridgehost.done", { ok: true, summary: [chosen.button] });
                })();
                """)
            defer { folder.remove() }
            for (choice, expected) in [("0", "Cancel"), ("Later", "Later")] {
                let run = try await ToolProcess.run(
                    "bridgehost",
                    [folder.path("index.html"), "--alert-choice", choice, "--payload-limit", "50", "--json"])
                #expect(run.status == 0)
                #expect(run.jsonLines.first { $0["event"] == "summary" }?["summary"] == [.string(expected)])
                let echo = try #require(Self.lines(run, kind: "call", task: "Echo", direction: "in").first)
                let payload = echo["payload"]?.stringValue ?? ""
                #expect(payload.utf8.count <= 50 + 3 && payload.hasSuffix("…"), "\(payload)")
                #expect(echo["payloadTruncated"] == 1011, "the options {\"text\": 1,000 x} are 1,011 bytes")
            }
            let defaultChoice = try await ToolProcess.run("bridgehost", [folder.path("index.html"), "--json"])
            #expect(
                defaultChoice.jsonLines.first { $0["event"] == "summary" }?["summary"] == ["Later"],
                "the last button by default")
        }

        @Test(
            "the demo: a native-to-page call is logged before the page's reply; the human form folds the Echo run and prints the page's summary",
            .timeLimit(.minutes(1)))
        func demoOrderAndHumanForm() async throws {
            let json = try await ToolProcess.run("bridgehost", ["--json", "--strict"])
            #expect(json.status == 0)
            let lines = json.jsonLines
            let nativeCall = try #require(
                lines.firstIndex { $0["kind"] == "call" && $0["task"] == "page.title" && $0["direction"] == "out" })
            let pageReply = try #require(
                lines.firstIndex { $0["kind"] == "reply" && $0["task"] == "page.title" && $0["direction"] == "in" })
            #expect(nativeCall < pageReply)
            #expect(lines.filter { $0["task"] == "Echo" }.count == 1_000, "JSON lines keep every message")
            // The demo's File.save and File.open: each transfer logged once as it ends.
            let transfers = lines.filter { $0["event"] == "transfer" }
            #expect(transfers.map { $0["direction"] } == ["upload", "download"], "\(transfers)")
            #expect(transfers.allSatisfy { $0["outcome"] == "finished" && $0["bytes"] == 3 && $0["id"] != nil })

            let human = try await ToolProcess.run("bridgehost", ["--human"])
            #expect(human.status == 0)
            let text = human.stdout.split(separator: "\n")
            #expect(text.count < 80, "\(text.count) lines")
            #expect(text.contains { $0.contains("more lines of Echo") })
            #expect(text.contains { $0.hasPrefix("Summary: the page finished and reported ok") })
            #expect(text.contains { $0.contains("page: Countdown progress 3,2,1") })
            #expect(text.contains { $0.contains("page: File.save wrote 3 bytes; File.open read \"hi!\"") })
            #expect(text.contains { $0.contains("transfer upload 3 bytes finished (call #") })
        }

        @Test(
            "--files DIR: File.open reads the developer's own files there and File.save writes there, kept after the run",
            .timeLimit(.minutes(1)))
        func filesFolder() async throws {
            let folder = try Self.shop(
                """
                (async function () {
                  const opened = await WebBridge.call("File.open", { name: "fixture.txt" });
                  const text = new TextDecoder().decode(opened.file);
                  await WebBridge.call("File.save", { name: "out.txt", file: new Blob([text.toUpperCase()]) });
                  await WebBridge.call("bridgehost.done", { ok: text === "from the developer", summary: ["read " + text] });
                })();
                """)
            defer { folder.remove() }
            let files = try TemporaryFolder(["fixture.txt": "from the developer"])
            defer { files.remove() }
            let run = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--files", files.path(""), "--json", "--strict"])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let written = try? String(contentsOfFile: files.path("out.txt"), encoding: .utf8)
            #expect(written == "FROM THE DEVELOPER", "File.save wrote into --files and it stays")

            let missing = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--files", files.path("not-there")])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("--files"), "\(missing.stderr)")
        }

        @Test(
            "--window shows the page in a visible window that ends the run when closed (SIGTERM)",
            .timeLimit(.minutes(1)))
        func window() async throws {
            let folder = try Self.shop(
                """
                WebBridge.call("bridgehost.done", { ok: true });
                """)
            defer { folder.remove() }
            let run = try ToolProcess("bridgehost", [folder.path("index.html"), "--window", "--json"])
            #expect(await run.waitForOutput("\"task\":\"bridgehost.done\""))
            try await Task.sleep(for: .milliseconds(300))
            #expect(run.process.isRunning, "the window stays open after bridgehost.done")
            run.process.terminate()
            let outcome = await run.finish()
            #expect(outcome.status == 0)
            let summary = try #require(outcome.jsonLines.first { $0["event"] == "summary" })
            #expect(summary["end"] == "windowClosed")
            #expect(summary["pageOK"] == true)
        }
    }
}
#endif
