#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension GTKWrapperTests.EndToEnd {
    /// Attack 22 (on 6d1b864, dfb919d): the console forwarder's per-view window and line cut, the
    /// terminal-safe text, many frames' console floods.
    @MainActor
    @Suite("Attack 22", .serialized)
    struct Attack22 {
        typealias A18 = Attack18
        typealias A19 = Attack19
        typealias A20 = Attack20
        typealias A21 = Attack21

        // MARK: The line cut counts grapheme clusters

        /// `GTKConsoleOutput.line(for:)` cuts `message` at 8,192 *Characters* (`String.count`,
        /// grapheme clusters). One cluster may hold any number of combining marks: a page's own
        /// `bridgekit:console` event whose message is one base letter and 32,000 combining marks
        /// (within the forwarder's 32,768-unit bound) is one Character, is never cut, and is
        /// written whole (about 96 KB of UTF-8 on one line, 1,000 such a second per view).
        @Test(
            "a console line from a page's own event is cut at 8,192 characters of text, however they combine",
            .timeLimit(.minutes(1)))
        func consoleCutCountsGraphemes() throws {
            let console = try ConsoleLinesView()
            defer { finish(console.view) }
            let line = try console.firstLine(
                running: """
                    var detail = JSON.stringify({level: 'log', kind: 'console', message: 'e' + '\\u20dd'.repeat(32000), source: '', line: 0});
                    window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail}));
                    """)
            let scalars = line.unicodeScalars.count
            let bytes = line.utf8.count
            print(
                "ATTACK22 console line of one base letter and 32,000 combining marks: \(line.count) Characters, \(scalars) scalars, \(bytes) bytes of UTF-8, cut: \(line.contains("more characters"))"
            )
            #expect(
                scalars <= GTKConsoleOutput.maxMessageCharacters + 64,
                "one console line carries \(scalars) Unicode scalars (\(bytes) bytes); the documented cut is 8,192 characters"
            )
        }

        // MARK: Terminal-safe text leaves line and direction controls

        /// `TerminalText.safe` escapes C0, DEL and C1 only. U+2028 LINE SEPARATOR and U+2029
        /// PARAGRAPH SEPARATOR (line breaks to Unicode-aware log readers: Python's `splitlines`,
        /// JavaScript log viewers, many editors) and the bidi controls U+202A–U+202E, U+2066–U+2069
        /// (which reorder what a terminal or viewer shows) pass into the app's output as they are,
        /// so a page (any frame) writes what reads as a line of its own.
        @Test(
            "a page's console message cannot break a line or reorder its text for the reader (U+2028, U+2029, bidi controls)",
            .timeLimit(.minutes(1)))
        func consoleLineSeparatorsPass() throws {
            let console = try ConsoleLinesView()
            defer { finish(console.view) }
            let line = try console.firstLine(
                running: """
                    console.log('ok\\u2028CONSOLE ERROR Uncaught TypeError: forged (app.js:1)\\u2029[app] payment approved \\u202Egnp.exe');
                    """)
            let dangerous: Set<UInt32> = [
                0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
            ]
            let found = line.unicodeScalars.filter { dangerous.contains($0.value) }.map {
                "U+" + String($0.value, radix: 16, uppercase: true)
            }
            let pieces = line.split(whereSeparator: { $0 == "\u{2028}" || $0 == "\u{2029}" })
            print(
                "ATTACK22 console line with line/paragraph separators: \(pieces.count) lines to a Unicode reader; unescaped \(found)"
            )
            #expect(
                found.isEmpty,
                "the console line carries \(found) unescaped: \(pieces.count) lines to a Unicode-aware reader")
        }

        // MARK: The isolated-world handler (held)

        /// The page world sees no `bridgekitConsole` handler, and its posts to a same-named
        /// handler reach nothing (guard: passes on 6d1b864).
        @Test("the page world cannot reach the console handler of the isolated world", .timeLimit(.minutes(1)))
        func pageCannotReachConsoleHandler() throws {
            let console = try ConsoleLinesView()
            let view = console.view
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            try view.loadHTML(
                """
                <script>
                var h = window.webkit && webkit.messageHandlers;
                var seen = typeof (h && h.bridgekitConsole);
                try { h.bridgekitConsole.postMessage(JSON.stringify({level: 'log', kind: 'console', message: 'DIRECT'})); } catch (e) {}
                document.title = 'seen ' + seen;
                </script>
                """, baseURI: "https://app.example/")
            #expect(waitUntil { recorder.titles.contains { $0?.hasPrefix("seen") ?? false } })
            settle(.milliseconds(300))
            let title = recorder.titles.last { $0?.hasPrefix("seen") ?? false } ?? nil
            print("ATTACK22 page world sees console handler: \(String(describing: title)); lines \(console.lines)")
            #expect(title == "seen undefined")
            #expect(!console.lines.contains { $0.contains("DIRECT") })
        }

        // MARK: Third-party frames silence the main frame's console

        /// The view's window (`GTKConsoleOutput.RateWindow`, 1,000 a second) is shared by all its
        /// frames and counts before anything else: a third-party ad with a few iframes of its
        /// own (500 a second each) uses it up early in every second, and the main frame's own
        /// `console.error` lines (uncaught errors, what an operator looks for) are left out unread,
        /// only counted.
        @Test(
            "third-party iframes flooding the console do not make the main frame's console lines left out",
            .timeLimit(.minutes(1)))
        func thirdPartySilencesMainConsole() throws {
            let main = try LoopbackServer()
            defer { main.stop() }
            let ads = try LoopbackServer()
            defer { ads.stop() }
            ads.routes["/ad"] = .init(
                body: """
                    <!doctype html><html><body><script>
                    setInterval(function () { for (var i = 0; i < 20; i++) console.log('ad noise ' + i); }, 10);
                    </script></body></html>
                    """)
            let iframes = (0..<4).map { _ in "<iframe src=\"\(ads.origin)/ad\"></iframe>" }.joined()
            main.routes["/"] = .init(
                body: """
                    <!doctype html><html><head><title>main</title></head><body>\(iframes)<script>
                    var k = 0;
                    setTimeout(function () {
                      var t = setInterval(function () { console.error('MAIN-ERROR-' + (k++)); if (k === 60) clearInterval(t); }, 50);
                    }, 1000);
                    </script></body></html>
                    """)
            let console = try ConsoleLinesView()
            let view = console.view
            defer { finish(view) }
            try view.load(uri: main.origin + "/")
            settle(.milliseconds(5000))
            let mainLines = console.lines.filter { $0.contains("MAIN-ERROR-") }.count
            let adLines = console.lines.filter { $0.contains("ad noise") }.count
            let notes = console.lines.filter { $0.contains("left out") }
            print(
                "ATTACK22 4 third-party iframes at 500/s each: main frame's console.error lines written \(mainLines) of 60; ad lines \(adLines); left-out notes \(notes.prefix(3))"
            )
            #expect(mainLines == 60, "the main frame's console.error lines written: \(mainLines) of 60")
        }

        // MARK: Many frames' console floods

        /// Attack 21's console flood (two iframes) with more frames: each iframe's forwarder posts
        /// 500 events a second of about 32 K units; the view decodes only 1,000 a second, but every
        /// one is still copied into the app and read on the GTK thread (`JSCValueText.text`),
        /// queued as a script message and counted on the main actor.
        @Test(
            "many third-party iframes flooding the console do not hold up the main frame's calls",
            .timeLimit(.minutes(1)), arguments: [(16, "ascii"), (16, "wide"), (16, "tiny"), (16, "wide burst")])
        func manyFramesConsoleFlood(frames: Int, kind: String) async throws {
            // ascii: ~32 K units (8,000 message, 24,000 source); wide: 32,000 CJK units (96 KB of
            // UTF-8 each); tiny: a few units. 6 events every 10 ms: what the forwarder passes.
            let message =
                switch kind {
                case "ascii": "message: 'x'.repeat(8000), source: 'https://x.example/' + 'a'.repeat(24000)"
                case "wide", "wide burst": "message: '\\u5b57'.repeat(32000), source: ''"
                default: "message: 'x', source: ''"
                }
            let attack = """
                var detail = JSON.stringify({level: 'log', kind: 'console', \(message), line: 1});
                var burst = \(kind == "wide burst" ? "true" : "false");
                if (burst) {
                  // The forwarder's 500 of each second at once (its window starts with the first).
                  // Four bursts, one a second, then the frame stops by itself.
                  var bursts = 0;
                  var timer = setInterval(function () { if (++bursts > 4) { clearInterval(timer); return; } for (var i = 0; i < 501; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 1001);
                } else {
                  setInterval(function () { for (var i = 0; i < 6; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 10);
                }
                """
            let (harness, servers) = try await A19.framedPage(
                frames: frames, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let baseline = try await A18.probe(harness, for: .seconds(1))
            let out = A21.SlowStdout(bytesPerSecond: 0)
            let sampler = A18.PeakSampler()
            defer { sampler.stop() }
            let clock = ContinuousClock()
            let started = clock.now
            try await harness.run(A19.go)
            print("ATTACK22 \(kind): go ran after \(clock.now - started)")
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(harness)
            print("ATTACK22 \(kind): probe started after \(clock.now - started)")
            await idle(.seconds(4))
            print(
                "ATTACK22 \(kind): flood measured until \(clock.now - started); growth so far +\(sampler.grownMiB) MiB")
            try await harness.run(
                "clearInterval(window.__probeTimer); document.querySelectorAll('iframe').forEach(function (f) { f.remove(); });"
            )
            let under = try? await A18.stopProbe(harness)
            out.stop()
            A18.terminateWebProcess(harness)
            print(
                "ATTACK22 console flood from \(frames) iframes, \(kind) events: main baseline \(baseline); under flood \(String(describing: under)); app growth +\(sampler.grownMiB) MiB"
            )
            await harness.close()
            A18.expectNotHeldUp(
                under, control: baseline, "main frame's calls while \(frames) iframes flood the console")
            #expect(sampler.grownMiB < 200, "app grew by \(sampler.grownMiB) MiB")
        }

        /// The same flood in view A, measured from view B (another page of the app) calling `Echo`
        /// every 20 ms.
        @Test(
            "many third-party iframes flooding the console in one view do not hold up another view's calls",
            .timeLimit(.minutes(1)), arguments: [false, true])
        func manyFramesConsoleFloodOtherView(burst: Bool) async throws {
            let attack = """
                var detail = JSON.stringify({level: 'log', kind: 'console', message: '\\u5b57'.repeat(32000), source: '', line: 1});
                if (\(burst)) {
                  var bursts = 0;
                  var timer = setInterval(function () { if (++bursts > 4) { clearInterval(timer); return; } for (var i = 0; i < 501; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 1001);
                } else {
                  setInterval(function () { for (var i = 0; i < 6; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 10);
                }
                """
            let (a, servers) = try await A19.framedPage(
                frames: 16, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let other = try LoopbackServer()
            defer { other.stop() }
            other.routes["/"] = .init(body: A18.plainPage)
            let b = try E2EHarness(allowing: [other.origin])
            try await b.load(other.origin + "/")
            let baseline = try await A18.probe(b, for: .seconds(1))
            let out = A21.SlowStdout(bytesPerSecond: 0)
            try await a.run(A19.go)
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(b)
            await idle(.seconds(4))
            try await a.run("document.querySelectorAll('iframe').forEach(function (f) { f.remove(); });")
            let under = try? await A18.stopProbe(b)
            out.stop()
            A18.terminateWebProcess(a)
            print(
                "ATTACK22 console flood (wide, burst \(burst)) from 16 iframes in view A: view B baseline \(baseline); under \(String(describing: under))"
            )
            await a.close()
            await b.close()
            A18.expectNotHeldUp(under, control: baseline, "view B's calls while view A's 16 iframes flood the console")
        }

        /// Samples the messages and bytes a view's inbound budget holds (read, waiting for their handler).
        final class QueuedSampler: @unchecked Sendable {
            let peakBytes = Atomic<Int>(0)
            let peakMessages = Atomic<Int>(0)
            private let running = Atomic<Bool>(true)
            init(_ core: GTKWebViewCore) {
                let thread = Thread { [self] in
                    while running.load(ordering: .relaxed) {
                        let (m, b) = core.inbound.withLock { ($0.messages, $0.bytes) }
                        if m > peakMessages.load(ordering: .relaxed) { peakMessages.store(m, ordering: .relaxed) }
                        if b > peakBytes.load(ordering: .relaxed) { peakBytes.store(b, ordering: .relaxed) }
                        usleep(1_000)
                    }
                }
                thread.start()
            }
            func stop() { running.store(false, ordering: .relaxed) }
        }

        /// One third-party iframe is enough: it makes 16 `srcdoc` children of its own, each of
        /// which gets a forwarder of its own (500 a second) and bursts wide console events.
        @Test(
            "one third-party iframe with children of its own flooding the console does not grow the app past 200 MiB",
            .timeLimit(.minutes(1)))
        func oneFrameChildrenConsoleFlood() async throws {
            let attack = """
                function burst() { var detail = JSON.stringify({level: 'log', kind: 'console', message: '\\u5b57'.repeat(32000), source: '', line: 1}); var bursts = 0; var timer = setInterval(function () { if (++bursts > 4) { clearInterval(timer); return; } for (var i = 0; i < 501; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 1001); }
                var html = '<script>(' + burst.toString() + ')();<' + '/script>';
                for (var k = 0; k < 16; k++) { var f = document.createElement('iframe'); f.srcdoc = html; document.body.appendChild(f); }
                """
            let (harness, servers) = try await A19.framedPage(
                frames: 1, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let baseline = try await A18.probe(harness, for: .seconds(1))
            let out = A21.SlowStdout(bytesPerSecond: 0)
            let sampler = A18.PeakSampler()
            defer { sampler.stop() }
            let queued = QueuedSampler(harness.view.core)
            defer { queued.stop() }
            try await harness.run(A19.go)
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(harness)
            await idle(.seconds(5))

            let under = try? await A18.stopProbe(harness)
            out.stop()
            A18.terminateWebProcess(harness)
            print(
                "ATTACK22 view's inbound budget peak while flooded: \(queued.peakMessages.load(ordering: .relaxed)) messages, \(queued.peakBytes.load(ordering: .relaxed) >> 20) MiB waiting for their handler"
            )
            print(
                "ATTACK22 one third-party iframe with 16 srcdoc children bursting console events: main baseline \(baseline); under \(String(describing: under)); app growth +\(sampler.grownMiB) MiB"
            )
            await harness.close()
            #expect(sampler.grownMiB < 200, "app grew by \(sampler.grownMiB) MiB")
            A18.expectNotHeldUp(under, control: baseline, "main frame's calls")
        }

        /// What a first-party iframe's probe saw.
        struct FrameProbe: Decodable {
            var lat: [Double]
            var failed: Int
            var outstanding: Int
            var codes: [String]
        }

        /// The console handler's messages count against the view's *others* share of the inbound
        /// budget (4,096 messages, 64 MiB), the share a first-party iframe's bridge calls use too:
        /// third-party iframes' console floods, which the app reads before it counts them against
        /// the console's 1,000 a second, fill it, and the first-party iframe's calls are turned
        /// away (`bridgekit:busy`, settled `memory_budget_exceeded`) or held up.
        @Test(
            "third-party iframes' console floods neither fail nor hold up a first-party iframe's bridge calls",
            .timeLimit(.minutes(1)))
        func consoleFloodFailsFirstPartyFrame() async throws {
            let attack = """
                var detail = JSON.stringify({level: 'log', kind: 'console', message: '\\u5b57'.repeat(32000), source: '', line: 1});
                var bursts = 0;
                var timer = setInterval(function () { if (++bursts > 4) { clearInterval(timer); return; } for (var i = 0; i < 501; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 1001);
                """
            let (latency, codes, grownMiB) = try await Self.firstPartyFrameUnderFlood(
                frames: 16, attack: attack, label: "ATTACK22")
            print(
                "ATTACK22 first-party iframe under 16 third-party iframes' console bursts: \(latency); codes \(Set(codes)); app growth +\(grownMiB) MiB"
            )
            #expect(latency.failed == 0, "the first-party iframe's calls failed: \(latency.failed) \(Set(codes))")
            #expect(latency.p95 < 500, "the first-party iframe's calls p95 \(latency.p95) ms")
        }

        /// A first-party iframe's `Echo` calls (every 20 ms, for 5 s) while `frames` third-party
        /// iframes of the same page run `attack`; a router that lets the app's own origin call
        /// from subframes, console forwarding on.
        /// - Returns: the calls' latency, their failure codes, and the app's peak growth.
        static func firstPartyFrameUnderFlood(
            frames: Int, attack: String, label: String
        ) async throws -> (latency: A18.Latency, codes: [String], grownMiB: Int) {
            // A19.framedPage's page, with a router that lets the app's own origin call from subframes.
            let main = try LoopbackServer()
            defer { main.stop() }
            let ads = try LoopbackServer()
            defer { ads.stop() }
            ads.routes["/ad"] = .init(
                body: E2EPage.html(
                    title: "ad",
                    head:
                        "<script>window.addEventListener('message', function (e) { if (e.data !== 'go') return; \(attack) });</script>"
                ))
            let iframes = (0..<frames).map { _ in "<iframe class=\"ad\" src=\"\(ads.origin)/ad\"></iframe>" }.joined()
            main.routes["/"] = .init(body: E2EPage.html(title: "main", body: iframes))
            main.routes["/first"] = .init(
                body: E2EPage.html(
                    title: "first",
                    head: """
                        <script>
                        window.__probe = {lat: [], failed: 0, outstanding: 0, codes: []};
                        window.addEventListener('message', function (e) {
                          if (e.data === 'start') {
                            window.__timer = setInterval(function () {
                              var t = performance.now(); window.__probe.outstanding++;
                              WebBridge.call('Echo', {n: 1}).then(function () {
                                window.__probe.outstanding--; window.__probe.lat.push(performance.now() - t);
                              }, function (e) { window.__probe.outstanding--; window.__probe.failed++;
                                if (window.__probe.codes.length < 10) window.__probe.codes.push(String(e && e.code)); });
                            }, 20);
                          } else if (e.data === 'stop') { clearInterval(window.__timer); }
                        });
                        </script>
                        """))
            let harness = try E2EHarness(
                policy: .origins([OriginPattern(main.origin)], allowsSubframes: true),
                configuration: A20.consoleConfiguration)
            try await harness.load(main.origin + "/", timeout: A19.loadTimeout(frames: frames))
            try await harness.waitFor(
                "Array.prototype.every.call(document.querySelectorAll('iframe'), function (f) { try { return !!f.contentWindow; } catch (e) { return false; } })"
            )
            await idle(.seconds(1))
            try await harness.run(
                "var f = document.createElement('iframe'); f.id = 'first'; f.src = '/first'; document.body.appendChild(f);"
            )
            try await harness.waitFor(
                "(function () { try { return !!document.getElementById('first').contentWindow.__probe; } catch (e) { return false; } })()"
            )
            try await harness.run("document.getElementById('first').contentWindow.postMessage('start', '*');")
            await idle(.seconds(1))
            try await harness.run("document.getElementById('first').contentWindow.postMessage('stop', '*');")
            try? await harness.waitFor(
                "document.getElementById('first').contentWindow.__probe.outstanding === 0", timeout: .seconds(5))
            let before = try await harness.value(
                "document.getElementById('first').contentWindow.__probe", as: FrameProbe.self)
            print(
                "\(label) first-party iframe baseline: \(A18.Latency(samples: before.lat, failed: before.failed, unsettled: before.outstanding)) codes \(Set(before.codes))"
            )
            try await harness.run(
                "document.getElementById('first').contentWindow.__probe = {lat: [], failed: 0, outstanding: 0, codes: []};"
            )
            let out = A21.SlowStdout(bytesPerSecond: 0)
            let sampler = A18.PeakSampler()
            defer { sampler.stop() }
            try await harness.run(
                "document.querySelectorAll('iframe.ad').forEach(function (f) { f.contentWindow.postMessage('go', '*'); }); document.getElementById('first').contentWindow.postMessage('start', '*');"
            )
            await idle(.seconds(5))
            try await harness.run("document.getElementById('first').contentWindow.postMessage('stop', '*');")
            try? await harness.waitFor(
                "document.getElementById('first').contentWindow.__probe.outstanding === 0", timeout: .seconds(20))
            let probe = try await harness.value(
                "document.getElementById('first').contentWindow.__probe", as: FrameProbe.self)
            out.stop()
            A18.terminateWebProcess(harness)
            await harness.close()
            let latency = A18.Latency(samples: probe.lat, failed: probe.failed, unsettled: probe.outstanding)
            return (latency, probe.codes, sampler.grownMiB)
        }

        /// Standard output as a pipe read at `bytesPerSecond` (a terminal over ssh, a log
        /// collector), keeping what it read.
        final class CapturedStdout: @unchecked Sendable {
            private let saved: Int32
            private let readEnd: Int32
            private let running = Atomic<Bool>(true)
            private let captured = Mutex(Data())
            init(bytesPerSecond: Int) {
                fflush(nil)
                var fds: [Int32] = [0, 0]
                pipe(&fds)
                saved = dup(STDOUT_FILENO)
                readEnd = fds[0]
                dup2(fds[1], STDOUT_FILENO)
                close(fds[1])
                let flags = fcntl(readEnd, F_GETFL)
                _ = fcntl(readEnd, F_SETFL, flags | O_NONBLOCK)
                let chunk = max(1, bytesPerSecond / 100)
                let thread = Thread { [self] in
                    var buffer = [UInt8](repeating: 0, count: chunk)
                    while running.load(ordering: .relaxed) {
                        let n = read(readEnd, &buffer, chunk)
                        if n > 0 { captured.withLock { $0.append(contentsOf: buffer[0..<n]) } }
                        usleep(10_000)
                    }
                }
                thread.start()
            }
            /// Restores standard output and returns what was read.
            func stop() -> String {
                fflush(nil)
                dup2(saved, STDOUT_FILENO)
                close(saved)
                running.store(false, ordering: .relaxed)
                usleep(30_000)
                close(readEnd)
                return captured.withLock { String(decoding: $0, as: UTF8.self) }
            }
        }

        /// `LineWriter.standardOutput` is one for the process, with one 1 MiB allowance: a page in
        /// view A that logs large lines (its main frame alone, 500 a second) keeps it full when
        /// standard output is read at 4 MiB/s, and view B's console lines (another page of the
        /// app, logging 20 a second) are left out, only counted.
        @Test(
            "a page logging large lines in one view does not make another view's console lines left out",
            .timeLimit(.minutes(1)))
        func consoleWriterSharedAcrossViews() throws {
            let a = try GTKWebView()
            defer { finish(a) }
            let b = try GTKWebView()
            defer { finish(b) }
            try GTKConsoleOutput.install(on: a)
            try GTKConsoleOutput.install(on: b)
            let out = CapturedStdout(bytesPerSecond: 4 << 20)
            try a.loadHTML(
                """
                <script>
                var big = '\\u5b57'.repeat(8000);
                setInterval(function () { for (var i = 0; i < 5; i++) console.log(big); }, 10);
                </script>
                """, baseURI: "https://a.example/")
            try b.loadHTML(
                """
                <script>
                var k = 0;
                setTimeout(function () {
                  var t = setInterval(function () { console.error('VIEWB-ERROR-' + (k++)); if (k === 60) clearInterval(t); }, 50);
                }, 1000);
                </script>
                """, baseURI: "https://b.example/")
            settle(.milliseconds(5000))
            let text = out.stop()
            let written = text.components(separatedBy: "VIEWB-ERROR-").count - 1
            let notes = text.split(separator: "\n").filter { $0.contains("standard output was too slow") }
            print(
                "ATTACK22 stdout at 4 MiB/s, view A logging 24 KB lines: view B's console.error lines written \(written) of 60; \(text.utf8.count >> 20) MiB read; notes \(notes.count), e.g. \(notes.prefix(2))"
            )
            #expect(written == 60, "view B's console lines written: \(written) of 60")
        }

        // MARK: bridgekit:unread and the traffic tap

        /// `GTKMessageHandlerRegistry.forward` hands every relay message to the host's tap
        /// (`WebKitGTKBridgeHost.onMessage`) before it decides to reject a head it read for an
        /// unadmitted sender `bridgekit:unread`: the app's message log recorded the call twice, once
        /// as its first 1,024 units (a body the router never saw) and once whole. Now the head is
        /// answered `forbidden` and nothing is posted again.
        @Test(
            "a call whose head was read before its sender was admitted reaches the host's message tap once, and fails forbidden",
            .timeLimit(.minutes(1)))
        func unreadCallTappedTwice() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "late", body: "late"))
            let tapped = Mutex<[String]>([])
            let harness = try E2EHarness(
                policy: .origins([]),
                messageTap: { message in
                    if message.direction == .inbound, message.json.contains("\"task\":\"Late\"") {
                        tapped.withLock { $0.append(message.json) }
                    }
                })
            harness.router.removeTask(named: "WhoAmI")
            try await harness.load(server.origin + "/")
            let late = ClosureTask(name: "Late", policy: .origins([OriginPattern(server.origin)])) {
                (options: JSONValue, _: CallContext) -> Int in
                if case .object(let object) = options, case .string(let s) = object["s"] { return s.utf8.count }
                return -1
            }
            try await harness.run(
                "setTimeout(function () { e2eCall('late', 'Late', {s: 'x'.repeat(1048576)}); }, 300);")
            // The main actor is busy while the page calls; the app admits the origin meanwhile.
            usleep(1_500_000)
            try harness.router.register(late)
            try await harness.waitForSettled(["late"])
            let outcome = try await harness.outcome("late")
            await harness.close()
            let seen = tapped.withLock { $0 }
            print(
                "ATTACK22 bridgekit:unread and the tap: call outcome ok=\(outcome.ok); tapped \(seen.count) inbound messages of the call, sizes \(seen.map(\.utf8.count))"
            )
            #expect(outcome.code == "forbidden", "\(String(describing: outcome.code))")
            #expect(seen.count == 1, "the tap saw the call \(seen.count) times, sizes \(seen.map(\.utf8.count))")
        }

        /// Fire-and-forget calls start "one at a time in arrival order" (docs/protocol.md). A large
        /// notify whose head was read while its sender was not admitted is rejected
        /// `bridgekit:unread` and posted again; the small notify the page sent after it, read whole,
        /// has run by then: the page's two notifies ran in the opposite order. Now the first is
        /// refused (`forbidden`, its sender not admitted when it was read) and never runs late.
        @Test(
            "a page's fire-and-forget call read before its sender was admitted never runs after the one the page sent next",
            .timeLimit(.minutes(1)))
        func unreadReordersNotifies() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "late", body: "late"))
            let harness = try E2EHarness(policy: .origins([]))
            harness.router.removeTask(named: "WhoAmI")
            try await harness.load(server.origin + "/")
            let order = Mutex<[String]>([])
            let late = ClosureTask(name: "Late", policy: .origins([OriginPattern(server.origin)])) {
                (options: JSONValue, _: CallContext) -> Int in
                if case .object(let object) = options, case .string(let tag) = object["tag"] {
                    order.withLock { $0.append(tag) }
                }
                return 0
            }
            try await harness.run(
                "setTimeout(function () { WebBridge.notify('Late', {tag: 'first', s: 'x'.repeat(1048576)}); WebBridge.notify('Late', {tag: 'second'}); }, 300);"
            )
            usleep(1_500_000)
            try harness.router.register(late)
            let clock = ContinuousClock()
            let start = clock.now
            while !order.withLock({ $0.contains("second") }), clock.now - start < .seconds(10) {
                await idle(.milliseconds(50))
            }
            await idle(.milliseconds(800))
            let seen = order.withLock { $0 }
            print("ATTACK22 notifies after bridgekit:unread ran in the order \(seen)")
            await harness.close()
            #expect(seen == ["second"] || seen == ["first", "second"], "the page's notifies ran as \(seen)")
        }

        /// The page aborts a large call right after making it. Native reads the call's head (its
        /// sender not admitted yet), then the cancel, then admits the sender: the head is rejected
        /// `bridgekit:unread`, the cancel finds no such call and is dropped, and the call posted
        /// again whole runs to its end although the page cancelled it (its cancel is lost).
        @Test(
            "a call the page cancelled right away does not run to its end after it is posted again (bridgekit:unread)",
            .timeLimit(.minutes(1)), arguments: [false, true])
        func unreadLosesCancel(registerFirst: Bool) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "late", body: "late"))
            let harness = try E2EHarness(policy: .origins([]))
            harness.router.removeTask(named: "WhoAmI")
            try await harness.load(server.origin + "/")
            let events = Mutex<[String]>([])
            let late = ClosureTask(name: "Late", policy: .origins([OriginPattern(server.origin)])) {
                (options: JSONValue, _: CallContext) async -> Int in
                events.withLock { $0.append("started") }
                for _ in 0..<50 {
                    if Task.isCancelled {
                        events.withLock { $0.append("cancelled") }
                        return 0
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                events.withLock { $0.append(Task.isCancelled ? "cancelled" : "completed") }
                return 1
            }
            if registerFirst { try harness.router.register(late) }
            try await harness.run(
                """
                setTimeout(function () {
                  var ac = new AbortController();
                  e2eCall('late', 'Late', {s: 'x'.repeat(1048576)}, {signal: ac.signal});
                  setTimeout(function () { ac.abort(); }, 0);
                }, 300);
                """)
            usleep(1_500_000)
            if !registerFirst { try harness.router.register(late) }
            try await harness.waitForSettled(["late"])
            let outcome = try await harness.outcome("late")
            let clock = ContinuousClock()
            let start = clock.now
            while clock.now - start < .milliseconds(1500) { await idle(.milliseconds(50)) }
            let seen = events.withLock { $0 }
            print(
                "ATTACK22 a call aborted at once, task registered \(registerFirst ? "before (control)" : "while it waited (bridgekit:unread)"): page outcome \(outcome.code ?? (outcome.ok ? "ok" : "?")); native task \(seen)"
            )
            await harness.close()
            #expect(!seen.contains("completed"), "the cancelled call ran to its end in the app: \(seen)")
        }
    }
}
#endif
