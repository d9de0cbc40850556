#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 19: the relay's first per-frame bound (posts awaiting their final answer) and the
    /// view's inbound budget (attack 18), turned against the main frame or legitimate use. Fixed
    /// by the relay's flow control and the main frame's reserve in the budget (docs/protocol.md,
    /// "Relay: flow control"); on the code before, 7 or 8 of the 12 tests failed (the floods'
    /// outcomes vary from run to run).
    @MainActor
    @Suite("Attack 19", .serialized)
    struct Attack19 {
        typealias A18 = Attack18

        /// A main page of an allowed origin (in a view of `configuration`, answering `Ping`, with
        /// `mainHead` in its head) with `frames` iframes of a third-party origin that the router
        /// does not allow; each iframe runs `attack` when the main page posts 'go' to it.
        /// How long a page of `frames` iframes may take to load: the harness's deadline and 40 ms a
        /// frame (960 frames took more than 20 s on a CI machine).
        static func loadTimeout(frames: Int) -> Duration {
            e2eDeadline + .milliseconds(40 * frames)
        }

        static func framedPage(
            frames: Int, attack: String, configuration: GTKWebViewConfiguration = GTKWebViewConfiguration(),
            mainHead: String = ""
        ) async throws -> (E2EHarness, [LoopbackServer]) {
            let main = try LoopbackServer()
            let ads = try LoopbackServer()
            ads.routes["/ad"] = .init(
                body: E2EPage.html(
                    title: "ad",
                    head:
                        "<script>window.addEventListener('message', function (e) { if (e.data !== 'go') return; \(attack) });</script>"
                ))
            let iframes = (0..<frames).map { _ in "<iframe class=\"ad\" src=\"\(ads.origin)/ad\"></iframe>" }.joined()
            main.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: "<script>WebBridge.handle('Ping', function () { return 'pong'; });</script>" + mainHead,
                    body: iframes))
            let harness = try E2EHarness(allowing: [main.origin], configuration: configuration)
            try await harness.load(main.origin + "/", timeout: loadTimeout(frames: frames))
            try await harness.waitFor(
                "Array.prototype.every.call(document.querySelectorAll('iframe'), function (f) { try { return !!f.contentWindow; } catch (e) { return false; } })"
            )
            await idle(.seconds(1))
            return (harness, [main, ads])
        }

        /// The probe of Attack 18 (every 20 ms), recording the first failure codes in `__codes`.
        static func startCodeProbe(_ harness: E2EHarness) async throws {
            try await harness.run("window.__codes = [];")
            try await harness.run(
                """
                window.__probe = {lat: [], failed: 0, outstanding: 0};
                window.__probeTimer = setInterval(function () {
                  var t = performance.now(); window.__probe.outstanding++;
                  WebBridge.call('Echo', {n: 1}).then(function () {
                    window.__probe.outstanding--; window.__probe.lat.push(performance.now() - t);
                  }, function (e) { window.__probe.outstanding--; window.__probe.failed++;
                    if (window.__codes.length < 20) window.__codes.push(String(e && e.code) + ':' + String(e && e.message)); });
                }, 20);
                """)
        }

        static func stopCodeProbe(_ harness: E2EHarness) async throws -> (A18.Latency, [String]) {
            let under = try await A18.stopProbe(harness)
            let codes = try await harness.value("window.__codes", as: [String].self)
            return (under, codes)
        }

        static let go =
            "document.querySelectorAll('iframe').forEach(function (f) { f.contentWindow.postMessage('go', '*'); });"

        /// What the main frame saw while its iframes flooded (``mainUnderFlood(frames:attack:seconds:configuration:)``).
        struct FloodOutcome {
            var baseline: A18.Latency
            var under: A18.Latency
            /// The first failure codes of the main frame's calls.
            var codes: [String]
            /// The app's peak growth during the flood.
            var grownMiB: Int
        }

        /// Probe in the main frame while the iframes flood, for `seconds`.
        static func mainUnderFlood(
            frames: Int, attack: String, seconds: Int,
            configuration: GTKWebViewConfiguration = GTKWebViewConfiguration()
        ) async throws -> FloodOutcome {
            let (harness, servers) = try await framedPage(frames: frames, attack: attack, configuration: configuration)
            defer { for server in servers { server.stop() } }
            let baseline = try await A18.probe(harness, for: .seconds(1))
            let sampler = A18.PeakSampler()
            defer { sampler.stop() }
            try await harness.run(go)
            await idle(.milliseconds(300))
            try await startCodeProbe(harness)
            await idle(.seconds(seconds))
            let (under, codes) = try await stopCodeProbe(harness)
            A18.terminateWebProcess(harness)
            await harness.close()
            return FloodOutcome(baseline: baseline, under: under, codes: codes, grownMiB: sampler.grownMiB)
        }

        /// One way third-party iframes flood the view, each iframe running `attack`.
        struct Flood: Sendable, CustomTestStringConvertible {
            let name: String
            let frames: Int
            let attack: String
            var testDescription: String { "\(frames) iframes, \(name)" }

            /// Each frame dispatches 4,096 tiny call-shaped posts every 5 ms.
            static let tiny = Flood(
                name: "tiny posts, 4,096 every 5 ms each", frames: 8,
                attack: """
                    var n = 0; setInterval(function () {
                      for (var i = 0; i < 4096; i++) { n++; window.dispatchEvent(new CustomEvent('webbridge:post', {detail: '{"v":1,"kind":"call","id":"a' + n + '","task":"Nope"}'})); }
                    }, 5);
                    """)
            /// Each frame keeps 4,096 posts in flight: one more for every answer (4 frames: 16,384,
            /// more than the view's 8,192; 2 frames: exactly the view's budget).
            static func refill(frames: Int) -> Flood {
                Flood(
                    name: "4,096 posts kept in flight each", frames: frames,
                    attack: """
                        var n = 0; function one() { n++; window.dispatchEvent(new CustomEvent('webbridge:post', {detail: '{"v":1,"kind":"call","id":"f' + n + '","task":"Nope"}'})); }
                        window.addEventListener('webbridge:message', function () { one(); });
                        for (var i = 0; i < 4096; i++) one();
                        """)
            }
            /// Each frame posts a 15 MiB body as often as it can (10 frames: more than the view's 128 MiB).
            static let large = Flood(
                name: "15 MiB bodies", frames: 10,
                attack: """
                    var big = '{"v":1,"kind":"call","id":"b","task":"Nope","options":{"s":"' + 'x'.repeat(15 * 1048576) + '"}}';
                    setInterval(function () { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: big})); }, 0);
                    """)
            /// Each frame posts 5.3M CJK characters (16 MiB of UTF-8, 10.6M UTF-16 code units).
            static let wide = Flood(
                name: "5.3M CJK characters per body", frames: 6,
                attack: """
                    var big = '{"v":1,"kind":"call","id":"c","task":"Nope","options":{"s":"' + '\\u4e00'.repeat(5 * 1048576) + '"}}';
                    setInterval(function () { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: big})); }, 0);
                    """)
            static let all = [tiny, refill(frames: 4), refill(frames: 2), large, wide]
        }

        @Test(
            "third-party iframes flooding the view do not make the main frame's calls fail",
            .timeLimit(.minutes(1)), arguments: Flood.all)
        func iframesFloodDenyMainFrame(_ flood: Flood) async throws {
            let outcome = try await Self.mainUnderFlood(frames: flood.frames, attack: flood.attack, seconds: 4)
            let under = outcome.under
            print(
                "ATTACK19 \(flood.testDescription): app peak +\(outcome.grownMiB) MiB; main baseline \(outcome.baseline); under flood \(under); codes \(Set(outcome.codes))"
            )
            #expect(
                under.failed == 0,
                "main frame calls failed: \(under.failed) of \(under.failed + under.samples.count) \(Set(outcome.codes))"
            )
            #expect(under.unsettled == 0)
        }

        static let busyPage = E2EPage.html(
            title: "busy",
            head: """
                <script>
                WebBridge.handle('Ping', function () { return 'pong'; });
                window.__ac = new AbortController(); window.__slowFailed = 0; window.__slowCodes = {};
                window.startSlow = function (n) { for (var i = 0; i < n; i++) {
                  WebBridge.call('Slow', {i: i}, {signal: window.__ac.signal}).catch(function (e) {
                    window.__slowFailed++; var c = String(e && e.code); window.__slowCodes[c] = (window.__slowCodes[c] || 0) + 1; }); } };
                </script>
                """)

        @Test(
            "a page with its relay's 4,096 posts awaiting long-running calls still answers the app's callPage",
            .timeLimit(.minutes(1)))
        func callPageAnswerAtBound() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.busyPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let before = try await harness.router.callPage("Ping", as: String.self, timeout: .seconds(3))
            try await harness.run("startSlow(4096);")
            await idle(.seconds(3))
            for _ in 0..<5 where harness.probe.runs(of: "Slow").count < 4096 {
                try await harness.run("startSlow(1);")
                await idle(.milliseconds(500))
            }
            let running = harness.probe.runs(of: "Slow").count
            let codes = try await harness.json("window.__slowCodes")
            var outcome = "pong?"
            do {
                outcome = try await harness.router.callPage("Ping", as: String.self, timeout: .seconds(3))
            } catch {
                outcome = "error: \(error)"
            }
            print(
                "ATTACK19 callPage at bound: before \(before); Slow running \(running), page failures \(codes); callPage -> \(outcome)"
            )
            #expect(outcome == "pong")
            A18.terminateWebProcess(harness)
            await harness.close()
        }

        static let uploadPage = E2EPage.html(
            title: "upload",
            head: """
                <script>
                WebBridge.handle('Big', function () { return 'y'.repeat(5 * 1048576); });
                window.startUpload = function () { WebBridge.call('Slow', {file: 'x'.repeat(12 * 1048576)}).catch(function () {}); };
                </script>
                """)

        @Test(
            "while one long-running call with a 12 MiB upload runs, the page can still make a 5 MiB call",
            .timeLimit(.minutes(1)))
        func longUploadBlocksNextCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.uploadPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            try await harness.run("e2eCall('before', 'Echo', {s: 'z'.repeat(5 * 1048576)});")
            try await harness.waitForSettled(["before"])
            let before = try await harness.outcome("before")
            try await harness.run("startUpload();")
            try await harness.waitFor("true")
            await idle(.seconds(2))
            let running = harness.probe.runs(of: "Slow").count
            try await harness.run("e2eCall('after', 'Echo', {s: 'z'.repeat(5 * 1048576)});")
            try await harness.waitForSettled(["after"])
            let after = try await harness.outcome("after")
            print(
                "ATTACK19 long upload: 5 MiB Echo before ok=\(before.ok); Slow running \(running); 5 MiB Echo during -> ok=\(after.ok) code=\(after.code ?? "-")"
            )
            #expect(after.ok, "5 MiB call while a 12 MiB call runs: \(after.code ?? "")")
            A18.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "while one long-running call with a 12 MiB upload runs, the page's 5 MiB answer to callPage reaches the app",
            .timeLimit(.minutes(1)))
        func longUploadDropsCallPageAnswer() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.uploadPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let before = try await harness.router.callPage("Big", as: String.self, timeout: .seconds(5)).count
            try await harness.run("startUpload();")
            await idle(.seconds(2))
            var outcome = "?"
            do {
                outcome =
                    "\(try await harness.router.callPage("Big", as: String.self, timeout: .seconds(5)).count) chars"
            } catch {
                outcome = "error: \(error)"
            }
            print("ATTACK19 callPage during long upload: before \(before) chars; during -> \(outcome)")
            #expect(outcome == "\(5 * 1_048_576) chars")
            A18.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "a page that aborts its long-running calls at the relay's bound can call again (its cancels reach the app)",
            .timeLimit(.minutes(1)))
        func cancelAtBoundLocksOut() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.busyPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            try await harness.run("startSlow(4096);")
            await idle(.seconds(3))
            let running = harness.probe.runs(of: "Slow").count
            try await harness.run("window.__ac.abort();")
            await idle(.seconds(3))
            let cancelled = harness.probe.cancelledCallIDs.count
            try await harness.run("e2eCall('after', 'Echo', {n: 2});")
            try await harness.waitForSettled(["after"])
            let after = try await harness.outcome("after")
            print(
                "ATTACK19 cancel at bound: Slow running \(running); cancelled natively after abort \(cancelled); next Echo -> \(after)"
            )
            #expect(
                cancelled == running, "\(cancelled) of \(running) Slow calls cancelled after the page aborted them all")
            #expect(after.ok, "next call: \(after)")
            A18.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "third-party iframes that reload themselves after each burst of 4,096 posts (fresh relay counters per document) do not make the main frame's calls fail",
            .timeLimit(.minutes(1)), arguments: [1, 3, 6])
        func iframesReloadDenyMainFrame(frames: Int) async throws {
            try await Self.reloadFlood(frames: frames)
        }

        static func reloadFlood(frames: Int) async throws {
            // Each document posts its 4,096 then reloads; the previous document's posts may still be queued.
            let attack = """
                for (var i = 0; i < 4096; i++) { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: '{"v":1,"kind":"call","id":"r' + i + '","task":"Nope"}'})); }
                location.reload();
                """
            let main = try LoopbackServer()
            let ads = try LoopbackServer()
            defer {
                main.stop()
                ads.stop()
            }
            ads.routes["/ad"] = .init(
                body: E2EPage.html(title: "ad", head: "<script>setTimeout(function () { \(attack) }, 0);</script>"))
            main.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main", body: String(repeating: "<iframe src=\"\(ads.origin)/ad\"></iframe>", count: frames))
            )
            let harness = try E2EHarness(allowing: [main.origin])
            try await harness.load(main.origin + "/")
            await idle(.milliseconds(500))
            try await Self.startCodeProbe(harness)
            await idle(.seconds(4))
            let (under, codes) = try await Self.stopCodeProbe(harness)
            print("ATTACK19 reloading iframes x\(frames): main under flood \(under); codes \(Set(codes))")
            A18.terminateWebProcess(harness)
            #expect(under.failed == 0, "main frame calls failed: \(under.failed) \(Set(codes))")
            await harness.close()
        }
    }
}
#endif
