#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// bridgehost's front-end developer features against hostile pages and malformed
    /// mock files.
    @MainActor
    @Suite("bridgehost: what a hostile page writes, and mock files that are not what they seem")
    struct BridgehostHostileOutput {
        static func folder(_ script: String, mocks: String = "{}") throws -> TemporaryFolder {
            try TemporaryFolder([
                "index.html": "<!doctype html><title>x</title><script src=app.js></script>",
                "app.js": script,
                "mocks.json": mocks,
            ])
        }

        @Test(
            "--human never writes a page's control characters to the terminal (no escape sequences, no forged lines)",
            .timeLimit(.minutes(1)))
        func terminalEscapes() async throws {
            let folder = try Self.folder(
                #"""
                (async function () {
                  console.log("title \u001b]0;pwned\u0007 clipboard \u001b]52;c;aGFja2Vk\u0007 clear \u001b[2J");
                  console.log("line one\nFORGED  Summary: the page finished and reported ok");
                  await WebBridge.call("Alert", { title: "\u001b[8mhidden\u001b[0m", buttons: ["OK"] });
                  await WebBridge.call("\u001b[31mEvil\rFORGED", {}).catch(() => null);
                  await WebBridge.call("bridgehost.done", { ok: true, summary: ["\u001b[2Jsummary\nFORGED line"] });
                })();
                """#)
            defer { folder.remove() }
            let run = try await ToolProcess.run("bridgehost", [folder.path("index.html"), "--human"])
            #expect(run.status == 0, "\(run.stderr)")
            let escapes = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter {
                $0.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x0D }
            }
            #expect(
                escapes.isEmpty,
                "raw ESC/BEL/CR from the page on stdout: \(escapes.map { String($0).debugDescription })")
            let forged = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FORGED") }
            #expect(forged.isEmpty, "lines the page forged: \(forged)")
        }

        /// Kind of fault: a log line that loses the message when its payload is JSON Foundation
        /// refuses: a lone surrogate (a string cut in the middle of an emoji, which JavaScript's
        /// `JSON.stringify` writes as `\ud83d`) turned the call and its reply into `→ ? ?` (found
        /// by the front-end developer's trial). The line names the task and id, the payload shows
        /// U+FFFD where the lone half was.
        @Test("a message with a lone surrogate is logged with its kind, task and id", .timeLimit(.minutes(1)))
        func loneSurrogate() async throws {
            let folder = try Self.folder(
                #"""
                (async function () {
                  const r = await WebBridge.call("Echo", { s: "cut \ud83d" });
                  await WebBridge.call("bridgehost.done", { ok: r.s === "cut \ud83d" });
                })();
                """#)
            defer { folder.remove() }
            let run = try await ToolProcess.run("bridgehost", [folder.path("index.html"), "--json", "--strict"])
            #expect(run.status == 0, "\(run.stderr)")
            let echo = run.jsonLines.filter { $0["task"] == "Echo" }
            #expect(echo.map { $0["kind"] } == ["call", "reply"], "\(echo)")
            #expect(echo.allSatisfy { $0["id"]?.stringValue != nil })
            #expect(echo.first?["payload"] == ["s": "cut \u{FFFD}"], "\(echo)")
        }

        @Test(
            "a mocked error whose code is \"ok\" is refused when the mock file loads (it would read as a success in the log and pass --strict)",
            .timeLimit(.minutes(1)))
        func errorCodeOK() async throws {
            let folder = try Self.folder("", mocks: #"{"Pay": {"error": {"code": "ok", "message": "Card declined"}}}"#)
            defer { folder.remove() }
            let run = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--mock", folder.path("mocks.json"), "--json"])
            #expect(run.status == 2, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stderr.contains("Pay") && run.stderr.contains("\"ok\""), "\(run.stderr)")
        }

        @Test(
            "a mock file naming one task twice is refused when it loads (the first entry is not silently dropped)",
            .timeLimit(.minutes(1)))
        func duplicateTask() async throws {
            let folder = try Self.folder(
                "", mocks: #"{"Sync": {"reply": "first"}, "Sync": {"error": {"code": "second"}}}"#)
            defer { folder.remove() }
            let run = try await ToolProcess.run(
                "bridgehost", ["--list-tasks", "--mock", folder.path("mocks.json"), "--json"])
            #expect(run.status == 2, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stderr.contains("Sync"), "\(run.stderr)")
        }

        @Test(
            "--alert-choice names a button by its title even when the title is a number",
            .timeLimit(.minutes(1)))
        func numericButtonTitle() async throws {
            let folder = try Self.folder(
                """
                (async function () {
                  const choice = await WebBridge.call("Alert", { title: "Copies?", buttons: ["5", "Cancel"] });
                  await WebBridge.call("bridgehost.done", { ok: true, summary: [choice.button] });
                })();
                """)
            defer { folder.remove() }
            let run = try await ToolProcess.run(
                "bridgehost", [folder.path("index.html"), "--alert-choice", "5", "--json"])
            let summary = try #require(run.jsonLines.first { $0["event"] == "summary" })
            #expect(summary["summary"] == ["5"], "\(summary)")
        }
    }
}
#endif
