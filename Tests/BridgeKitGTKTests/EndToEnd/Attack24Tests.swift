#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 24 (on fc105b4): the console intake's held answers (`GTKConsoleOutput.Intake`), the
    /// `main` / `sub <origin>` header and the `[iframe <origin>]` label, the forwarder in its
    /// isolated world.
    @MainActor
    @Suite("Attack 24", .serialized)
    struct Attack24 {
        /// A view with the console forwarding whose lines are kept with the wall-clock time
        /// (milliseconds since 1970) each was written.
        @MainActor
        final class TimedLines {
            let view: GTKWebView
            private(set) var lines: [(ms: Double, text: String)] = []

            init() throws {
                view = try GTKWebView()
                try GTKConsoleOutput.install(on: view) { [weak self] message in
                    self?.lines.append((Date().timeIntervalSince1970 * 1000, GTKConsoleOutput.line(for: message)))
                }
            }

            func first(containing text: String) -> (ms: Double, text: String)? {
                lines.first { $0.text.contains(text) }
            }
        }

        /// The page makes same-origin `srcdoc` children, each of which dispatches one event of
        /// 32,000 CJK units (about 96 KB of UTF-8, a fresh forwarder: it posts at once) and is
        /// removed 300 ms later: 300 documents in 3 s.
        static let churn = """
            window.__d = '\\u5b57'.repeat(32000);
            var child = '<script>window.dispatchEvent(new CustomEvent("bridgekit:console", {detail: parent.__d}));<' + '/script>';
            var made = 0;
            var timer = setInterval(function () {
              for (var k = 0; k < 10; k++) {
                var f = document.createElement('iframe'); f.srcdoc = child; document.body.appendChild(f);
                (function (f) { setTimeout(function () { f.remove(); }, 300); })(f);
                made += 1;
              }
              if (made >= 300) { clearInterval(timer); }
            }, 100);
            """

        // MARK: Dead documents' held answers spend the others' share

        /// Posts over the others' second were held in `heldOthers`, FIFO, and each second only
        /// about 1 MiB of them was answered. A held post's answer was kept when its document was
        /// gone (the frame removed) and still spent the release budget. A live same-origin iframe
        /// logs a line every 100 ms (with its time) during and 5 s after a churn of 300
        /// short-lived documents: its lines waited 5.4-6.4 s at p95. Now nothing is held: a post
        /// over the share's second is dropped and its frame waits out the second. The live
        /// iframe shares the others' second with the churn, so its lines may wait for most of one
        /// second (measured 0.4-0.7 s at p95), and every line is written or counted left out.
        @Test(
            "a live iframe's console lines wait at most about a second while removed documents flood the other frames' share, and each is written or counted",
            .timeLimit(.minutes(1)))
        func deadDocumentsHoldLiveFrame() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            try page.view.loadHTML(
                """
                <iframe id="live" srcdoc="<script>var n = 0; var t = setInterval(function () { console.log('LIVE ' + (n++) + ' ' + Date.now()); if (n === 80) clearInterval(t); }, 100);</script>"></iframe>
                <script>
                \(Self.churn)
                </script>
                """, baseURI: "https://app.example/")
            for _ in 0..<300 where !page.lines.contains(where: { $0.text.contains("LIVE 79 ") }) {
                await idle(.milliseconds(100))
            }
            await idle(.seconds(1))
            var delays: [Double] = []
            for line in page.lines where line.text.contains("] LIVE ") {
                if let sent = line.text.split(separator: " ").last.flatMap({ Double($0) }) {
                    delays.append(line.ms - sent)
                }
            }
            delays.sort()
            let p95 = delays.isEmpty ? .infinity : delays[min(delays.count - 1, delays.count * 95 / 100)]
            let notes = page.lines.filter { $0.text.contains("left out") }.map(\.text)
            print(
                "ATTACK24 300 removed documents' held posts: live iframe wrote \(delays.count) of 80 lines, p95 \(p95) ms, max \(delays.last ?? -1) ms; notes \(notes.count): \(notes.prefix(6))"
            )
            #expect(p95 < 1500, "the live iframe's lines p95 \(p95) ms")
            let counted = notes.compactMap { note in
                note.split(separator: " ").firstIndex(of: "console").flatMap { Int(note.split(separator: " ")[$0 - 1]) }
            }.reduce(0, +)
            #expect(delays.count + counted >= 80, "\(delays.count) of 80 lines written, \(counted) counted left out")
        }

        /// The same churn by one page, then the view loads another page (a new main document,
        /// say the app's own after a third-party one): the new page's iframe's lines waited
        /// behind the answers held for the first page's removed documents (21.5-22.4 s at p95).
        /// Now nothing is held; the view's window of the other frames' second the first page
        /// filled may still drop the new page's first post (0.4 s at p95 measured).
        @Test(
            "a new page's iframe is not held up by the previous page's console flood for more than about a second",
            .timeLimit(.minutes(1)))
        func heldAnswersOutliveNavigation() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            try page.view.loadHTML("<script>\n\(Self.churn)\n</script>", baseURI: "https://third.example/")
            await idle(.milliseconds(3200))
            try page.view.loadHTML(
                """
                <iframe srcdoc="<script>var n = 0; var t = setInterval(function () { console.log('NEXT ' + (n++) + ' ' + Date.now()); if (n === 30) clearInterval(t); }, 100);</script>"></iframe>
                """, baseURI: "https://app.example/")
            for _ in 0..<300 where !page.lines.contains(where: { $0.text.contains("NEXT 29 ") }) {
                await idle(.milliseconds(100))
            }
            await idle(.milliseconds(500))
            var delays: [Double] = []
            for line in page.lines where line.text.contains("] NEXT ") {
                if let sent = line.text.split(separator: " ").last.flatMap({ Double($0) }) {
                    delays.append(line.ms - sent)
                }
            }
            delays.sort()
            let p95 = delays.isEmpty ? .infinity : delays[min(delays.count - 1, delays.count * 95 / 100)]
            print(
                "ATTACK24 after navigating away from a churn: the next page's iframe wrote \(delays.count) of 30 lines, p95 \(p95) ms, max \(delays.last ?? -1) ms"
            )
            #expect(p95 < 1500, "the next page's iframe's lines p95 \(p95) ms")
        }

        // MARK: A frame's own left-out count is lost in a held post

        /// Three iframes keep the others' share over its megabyte a second, each within its own
        /// limits (8 events of ~32,000 CJK units a second). A fourth logs 600 lines at once: its
        /// forwarder passes 500 and, at the second's end, a line "100 console messages left out".
        /// That note travels in a post like any line; when the post is held, the app counts it as
        /// one message left out, and the 100 it stood for are reported nowhere: the counts in all
        /// notes add up to less than the lines that were not written.
        @Test(
            "every console line not written is counted in some left-out note, also when the frame's own note is held",
            .timeLimit(.minutes(1)))
        func heldNoteLosesCount() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            let flooder =
                "<script>var d = JSON.stringify({level: &quot;log&quot;, kind: &quot;console&quot;, message: &quot;FLOOD &quot; + &quot;\\u5b57&quot;.repeat(31900), source: &quot;&quot;, line: 0}); var n = 0; var t = setInterval(function () { window.dispatchEvent(new CustomEvent(&quot;bridgekit:console&quot;, {detail: d})); if (++n === 24) clearInterval(t); }, 125);</script>"
            try page.view.loadHTML(
                """
                <iframe srcdoc="\(flooder)"></iframe><iframe srcdoc="\(flooder)"></iframe><iframe srcdoc="\(flooder)"></iframe>
                <iframe srcdoc="<script>setTimeout(function () { for (var i = 0; i < 600; i++) console.log('BURST-' + i); }, 1000);</script>"></iframe>
                """, baseURI: "https://app.example/")
            await idle(.seconds(8))
            let texts = page.lines.map(\.text)
            let flood = texts.filter { $0.contains("FLOOD ") }.count
            let burst = texts.filter { $0.contains("BURST-") }.count
            let notes = texts.filter { $0.contains("left out") }
            let reported = notes.reduce(0) { sum, note in
                sum
                    + (note.split(separator: " ").firstIndex(of: "console").flatMap { i in
                        Int(note.split(separator: " ")[i - 1])
                    } ?? 0)
            }
            let missing = (3 * 24 - flood) + (600 - burst)
            print(
                "ATTACK24 held notes: flood lines \(flood) of 72, burst lines \(burst) of 600, not written \(missing), counts reported \(reported); notes \(notes)"
            )
            #expect(reported >= missing, "\(missing) lines not written, notes count \(reported)")
        }

        // MARK: The main frame's lines under the others' churn (guard)

        /// The same churn of removed documents; the main frame logs every 100 ms with its own
        /// clock. Its lines go through the main frame's share: none waits more than 500 ms.
        @Test(
            "the main frame's console lines are not held up by iframes' held answers",
            .timeLimit(.minutes(1)))
        func mainFrameLinesUnderChurn() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            try page.view.loadHTML(
                """
                <script>
                \(Self.churn)
                var n = 0;
                var mt = setInterval(function () { console.log('MAIN ' + (n++) + ' ' + Date.now()); if (n === 50) clearInterval(mt); }, 100);
                </script>
                """, baseURI: "https://app.example/")
            for _ in 0..<200 where !page.lines.contains(where: { $0.text.contains("MAIN 49 ") }) {
                await idle(.milliseconds(100))
            }
            var delays: [Double] = []
            for line in page.lines where line.text.hasPrefix("CONSOLE LOG MAIN ") {
                if let sent = line.text.split(separator: " ").last.flatMap({ Double($0) }) {
                    delays.append(line.ms - sent)
                }
            }
            delays.sort()
            let p95 = delays.isEmpty ? .infinity : delays[min(delays.count - 1, delays.count * 95 / 100)]
            let forged = page.lines.filter { $0.text.contains("\u{5b57}") && !$0.text.contains("[iframe ") }.count
            print(
                "ATTACK24 main frame under 300 churned documents: \(delays.count) of 50 lines, p95 \(p95) ms, max \(delays.last ?? -1) ms; iframe lines without label \(forged)"
            )
            #expect(delays.count == 50, "main frame's lines written: \(delays.count) of 50")
            #expect(p95 < 500, "main frame's lines p95 \(p95) ms")
            #expect(forged == 0)
        }

        // MARK: Headers and labels (guard)

        /// Frames of every kind a page can make (sandboxed srcdoc, data:, about:blank written by the
        /// parent, javascript: URL, a child of a sandboxed frame, a sandboxed frame dispatching on
        /// its parent) log `FRAME-…`: every such line names an iframe, and the sandboxed ones read
        /// `[iframe null]`, never the main frame's or another origin.
        @Test("no iframe's console line passes for the main frame's or names another origin", .timeLimit(.minutes(1)))
        func subframeLabels() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            try page.view.loadHTML(
                """
                <iframe sandbox="allow-scripts" srcdoc="<script>console.log('FRAME-sandboxed'); try { parent.dispatchEvent(new CustomEvent('bridgekit:console', {detail: JSON.stringify({level:'error',kind:'uncaught',message:'FRAME-sandbox-on-parent'})})); } catch (e) { console.log('FRAME-sandbox-parent-refused'); } try { document.domain = 'app.example'; } catch (e) {} var c = document.createElement('iframe'); c.srcdoc = '<script>console.log(&quot;FRAME-sandboxed-child&quot;)<' + '/script>'; document.body.appendChild(c);</script>"></iframe>
                <iframe src="data:text/html,<script>console.log('FRAME-data')</script>"></iframe>
                <iframe id="blank"></iframe>
                <iframe src="javascript:'<script>console.log(&quot;FRAME-javascript&quot;)</script>'"></iframe>
                <script>
                setTimeout(function () {
                  var w = document.getElementById('blank').contentWindow;
                  w.document.open(); w.document.write('<script>console.log("FRAME-blank-written")<' + '/script>'); w.document.close();
                }, 200);
                </script>
                """, baseURI: "https://app.example/")
            await idle(.seconds(3))
            let frameLines = page.lines.map(\.text).filter { $0.contains("FRAME-") }
            print("ATTACK24 frame labels: \(frameLines)")
            #expect(frameLines.count >= 4, "lines: \(frameLines)")
            for line in frameLines {
                #expect(line.contains("[iframe "), "an iframe's line reads as the main frame's: \(line)")
                if line.contains("sandbox") { #expect(line.contains("[iframe null]"), "\(line)") }
            }
        }

        // MARK: Page-world overrides do not reach the forwarder (guard)

        /// The page world replaces what the forwarder calls (Date.now, setTimeout, Reflect.apply,
        /// Promise.prototype.then, JSON.stringify's use by the forwarder, Math.max, String,
        /// Function.prototype.bind, addEventListener, postMessage of handlers) and then logs 600
        /// lines: the isolated world's forwarder still writes 500 and says 100 were left out.
        @Test("page-world overrides do not break the isolated forwarder", .timeLimit(.minutes(1)))
        func pageWorldOverrides() async throws {
            let page = try TimedLines()
            defer { finish(page.view) }
            try page.view.loadHTML(
                """
                <script>
                var stringify = JSON.stringify;
                Date.now = function () { return 0; };
                window.setTimeout = function () { return 0; };
                Reflect.apply = function () { throw new Error('x'); };
                Promise.prototype.then = function () { return this; };
                Math.max = function () { return 1e9; };
                Function.prototype.bind = function () { return function () {}; };
                try { Object.defineProperty(window, 'top', { get: function () { return window; } }); } catch (e) {}
                for (var i = 0; i < 600; i++) console.log('OVR-' + i);
                </script>
                """, baseURI: "https://app.example/")
            await idle(.seconds(3))
            let written = page.lines.filter { $0.text.contains("OVR-") }.count
            let notes = page.lines.filter { $0.text.contains("left out") }.map(\.text)
            print("ATTACK24 page-world overrides: \(written) of 600 written; notes \(notes)")
            #expect(written >= 500, "written \(written)")
            #expect(written == 600 || notes.contains { $0.contains("\(600 - written) console messages") }, "\(notes)")
        }

        // MARK: Closing a view with answers held (guard)

        /// Closing the view while the others' share holds answers, then letting the release time
        /// pass: no crash, and another view's forwarding works.
        @Test("closing a view while iframes' answers are held is harmless", .timeLimit(.minutes(1)))
        func closeWithHeldAnswers() async throws {
            let page = try TimedLines()
            try page.view.loadHTML("<script>\n\(Self.churn)\n</script>", baseURI: "https://app.example/")
            await idle(.milliseconds(1500))
            finish(page.view)
            await idle(.seconds(3))
            let other = try ConsoleLinesView()
            defer { finish(other.view) }
            let line = try other.firstLine(running: "console.log('AFTER-CLOSE')")
            #expect(line.contains("AFTER-CLOSE"), "\(line)")
        }
    }
}
#endif
