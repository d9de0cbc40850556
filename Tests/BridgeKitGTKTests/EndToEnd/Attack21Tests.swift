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
    /// Attack 21 (on b310a82): the views' turns on the main actor (`GTKEventQueue`), the console
    /// forwarder in its own world (`GTKConsoleOutput`), the gate that reads only the head of an
    /// unadmitted sender's body. Every test failed there; fixed since: only the relay's handler
    /// reads a frame stamp; console lines are written off the main actor (at most 1 MiB waiting)
    /// and counted per view before they are decoded (1,000 a second), their source cut, the
    /// page-world script wrapping `console` once; a nested delivery finishes the batch under way;
    /// a body whose sender was admitted after its head was read fails `forbidden` (attack 22: not
    /// posted again); posts turned away busy go again in the order first posted.
    @MainActor
    @Suite("Attack 21", .serialized)
    struct Attack21 {
        typealias A18 = Attack18
        typealias A19 = Attack19
        typealias A20 = Attack20

        // MARK: Nested delivery reorders one view's events

        /// `GTKEventQueue.deliver()` takes up to 64 events, then hands them to their views one by
        /// one. A handler that waits synchronously (`GLibMainLoop.iterate`, public, "for code that
        /// must wait synchronously on the main actor") delivers the queue's *next* events inside
        /// that loop, before the rest of the outer batch: one view's messages arrive out of order.
        @Test(
            "a handler that iterates the main loop does not make one view's later messages arrive before its earlier ones",
            .timeLimit(.minutes(1)))
        func nestedIterateReordersOneView() throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var received: [Int] = []
            var nested = false
            try view.registerScriptMessageHandler(name: "seq", world: nil, withReply: false) { message in
                received.append(Int(message.bodyJSONText) ?? -1)
                if !nested {
                    nested = true
                    // A synchronous wait inside a handler (an app waiting for something on the main actor).
                    GLibMainLoop.shared.iterate(until: { false }, timeout: .milliseconds(300))
                }
            }
            try view.loadHTML(
                "<script>setTimeout(function () { for (var i = 0; i < 300; i++) webkit.messageHandlers.seq.postMessage(String(i)); }, 200);</script>",
                baseURI: "https://app.example/")
            // Block the main actor while the page posts, so the queue holds many of its messages.
            usleep(1_500_000)
            #expect(waitUntil { received.count == 300 })
            let firstSwap = zip(received, received.dropFirst()).first { $0.0 > $0.1 }
            print(
                "ATTACK21 nested delivery: first 8 \(Array(received.prefix(8))); first out-of-order pair \(String(describing: firstSwap))"
            )
            let inOrder = received == Array(0..<300)
            #expect(
                inOrder,
                "one view's messages arrived out of order: first 4 \(Array(received.prefix(4))), first swap \(String(describing: firstSwap))"
            )
        }

        // MARK: Console forwarder

        /// The forwarder passes any `bridgekit:console` event a page dispatches itself (up to
        /// 32,768 units); `GTKConsoleOutput.line(for:)` cuts only `message` at 8,192 characters,
        /// not `source`: one console line can be four times the documented longest.
        @Test(
            "a page's own bridgekit:console event cannot write a console line longer than maxMessageCharacters plus its envelope",
            .timeLimit(.minutes(1)))
        func consoleSourceUncut() throws {
            let console = try ConsoleLinesView()
            defer { finish(console.view) }
            let line = try console.firstLine(
                running: """
                    var detail = JSON.stringify({level: 'log', kind: 'console', message: 'm', source: 'https://x.example/' + 'a'.repeat(32000), line: 1});
                    window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail}));
                    """)
            #expect(!line.isEmpty)
            let longest = line.count
            print("ATTACK21 console line from a page's own event: \(longest) characters")
            #expect(
                longest <= GTKConsoleOutput.maxMessageCharacters + 2048 + 64, "console line of \(longest) characters")
        }

        /// A pipe standing for the app's standard output with a slow reader (a terminal over ssh, a
        /// log collector): drained at `bytesPerSecond` on a thread of its own.
        final class SlowStdout: @unchecked Sendable {
            private let saved: Int32
            private let readEnd: Int32
            private let running = Atomic<Bool>(true)
            private let fast = Atomic<Bool>(false)
            let drained = Atomic<Int>(0)
            /// - Parameter bytesPerSecond: 0 for /dev/null (a reader that keeps up).
            init(bytesPerSecond: Int) {
                fflush(nil)
                var fds: [Int32] = [0, 0]
                pipe(&fds)
                saved = dup(STDOUT_FILENO)
                readEnd = fds[0]
                dup2(fds[1], STDOUT_FILENO)
                close(fds[1])
                if bytesPerSecond == 0 {
                    let null = open("/dev/null", O_WRONLY)
                    dup2(null, STDOUT_FILENO)
                    close(null)
                }
                let chunk = max(1, bytesPerSecond / 100)
                let thread = Thread { [self] in
                    var buffer = [UInt8](repeating: 0, count: chunk)
                    while running.load(ordering: .relaxed) {
                        let n = read(readEnd, &buffer, chunk)
                        if n > 0, !fast.load(ordering: .relaxed) { drained.add(n, ordering: .relaxed) }
                        if !fast.load(ordering: .relaxed) { usleep(10_000) }
                    }
                }
                thread.start()
            }
            /// Sends standard output to /dev/null and drains the pipe at full speed (the backlog goes).
            func release() {
                let null = open("/dev/null", O_WRONLY)
                dup2(null, STDOUT_FILENO)
                close(null)
                fast.store(true, ordering: .relaxed)
            }
            /// Restores standard output; what is left in the pipe is dropped.
            func stop() {
                fflush(nil)
                dup2(saved, STDOUT_FILENO)
                close(saved)
                running.store(false, ordering: .relaxed)
                // Let the drain thread end, then drop the pipe.
                usleep(30_000)
                close(readEnd)
            }
        }

        /// A third-party iframe dispatches console events as fast as the forwarder passes them
        /// (500 a second, each about 32 KB: a short message with a long `source`); the app writes
        /// every line to standard output synchronously on the main actor. With standard output
        /// read at 4 MiB/s, the main actor sits in `write(2)` and the main frame's calls wait.
        @Test(
            "a third-party iframe flooding console lines does not hold up the main frame's calls when stdout is read slowly",
            .timeLimit(.minutes(1)), arguments: [0, 4 << 20])
        func consoleFloodBlocksMainActor(stdoutBytesPerSecond: Int) async throws {
            let attack = """
                var detail = JSON.stringify({level: 'log', kind: 'console', message: 'x'.repeat(8000), source: 'https://x.example/' + 'a'.repeat(24000), line: 1});
                setInterval(function () { for (var i = 0; i < 50; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 10);
                """
            let (harness, servers) = try await A19.framedPage(
                frames: 2, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let baseline = try await A18.probe(harness, for: .seconds(1))
            let out = SlowStdout(bytesPerSecond: stdoutBytesPerSecond)
            try await harness.run(A19.go)
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(harness)
            await idle(.seconds(4))
            let drained = out.drained.load(ordering: .relaxed)
            out.release()
            try await harness.run(
                "clearInterval(window.__probeTimer); document.querySelectorAll('iframe').forEach(function (f) { f.remove(); });"
            )
            let under = try? await A18.stopProbe(harness)
            out.stop()
            A18.terminateWebProcess(harness)
            print(
                "ATTACK21 console flood, stdout at \(stdoutBytesPerSecond == 0 ? "/dev/null" : "\(stdoutBytesPerSecond >> 20) MiB/s"): drained \(drained >> 20) MiB; main baseline \(baseline); under flood \(String(describing: under))"
            )
            await harness.close()
            #expect(
                (under?.samples.count ?? 0) >= 100,
                "main frame's calls completed in 4 s: \(under?.samples.count ?? 0) of ~200")
            A18.expectNotHeldUp(under, control: baseline, "main frame's calls while an iframe floods the console")
        }

        // MARK: The unadmitted-head gate decides before the router does

        /// `JSCValueText.unadmittedHead` asks `admitsSender` on the GTK thread when WebKit hands
        /// the message over; the router decides again when it handles it, later (after everything
        /// queued ahead of it on the main actor). When the app admits the sender in between (it
        /// registers a task with its own policy, e.g. once the user signed in), the router finds
        /// the sender admitted but holds only the body's head: a legitimate 1 MiB call (limit 16
        /// MiB) failed `payload_too_large`. Attack 21's fix had the relay post the body again,
        /// whole, which put it behind what the page sent after it (attack 22: its cancel was lost,
        /// notifies ran out of order). Now the call is judged by the policy in force when the app
        /// read it, which is when the page sent it: `forbidden`, the code of a call sent before
        /// the app admits its sender.
        @Test(
            "a call read before a task admitting its sender is registered fails forbidden, not payload_too_large; after, it runs",
            .timeLimit(.minutes(1)), arguments: [false, true])
        func admissionDecidedTooEarly(registerFirst: Bool) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "late", body: "late"))
            let harness = try E2EHarness(policy: .origins([]))
            // The harness's WhoAmI admits every origin (its own policy).
            harness.router.removeTask(named: "WhoAmI")
            try await harness.load(server.origin + "/")
            let late = ClosureTask(name: "Late", policy: .origins([OriginPattern(server.origin)])) {
                (options: JSONValue, _: CallContext) -> Int in
                if case .object(let object) = options, case .string(let s) = object["s"] { return s.utf8.count }
                return -1
            }
            if registerFirst { try harness.router.register(late) }
            try await harness.run(
                "setTimeout(function () { e2eCall('late', 'Late', {s: 'x'.repeat(1048576)}); }, 300);")
            // The main actor is busy (another view's work, a synchronous step) while the page calls.
            usleep(1_500_000)
            if !registerFirst { try harness.router.register(late) }
            try await harness.waitForSettled(["late"])
            let outcome = try await harness.outcome("late")
            print(
                "ATTACK21 task admitting the sender registered \(registerFirst ? "before" : "while the call waited"): \(outcome)"
            )
            await harness.close()
            if registerFirst {
                #expect(outcome.ok, "the call of an admitted sender failed: \(String(describing: outcome.code))")
            } else {
                #expect(
                    outcome.code == "forbidden",
                    "\(String(describing: outcome.code)) \(String(describing: outcome.message))")
            }
        }

        // MARK: What one frame's console flood costs the app

        /// The forwarder counted a frame's messages (500 a second), not their size: a frame
        /// dispatching events of ~32 K units moved 16 M units a second into the app, which read,
        /// decoded and wrote each on its main actor (CI, stop 39: another view's p95 0.7-1.7 s).
        /// What a frame passes in a second is bounded in units too, before WebKit copies it.
        @Test(
            "one frame's console flood of large events passes a bounded number of characters a second into the app",
            .timeLimit(.minutes(1)))
        func consoleFloodVolume() throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var units = 0
            var messages = 0
            try GTKConsoleOutput.install(on: view) { message in
                messages += 1
                units += message.message.utf16.count + (message.source?.utf16.count ?? 0)
            }
            try view.loadHTML(
                """
                <script>
                var detail = JSON.stringify({level: 'log', kind: 'console', message: 'x'.repeat(8000), source: 'https://x.example/' + 'a'.repeat(24000), line: 1});
                var timer = setInterval(function () { for (var i = 0; i < 50; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 10);
                setTimeout(function () { clearInterval(timer); }, 2000);
                </script>
                """, baseURI: "https://app.example/")
            settle(.milliseconds(3000))
            print("ATTACK21 one frame's console flood for 2 s: \(messages) messages, \(units) units")
            // Two seconds of flood span at most three of the forwarder's one-second windows.
            let bound = 3 * GTKConsoleOutput.maxEventUnitsPerSecond + GTKConsoleOutput.maxEventCharacters
            #expect(units <= bound, "\(units) units in 2 s (bound \(bound))")
            #expect(messages > 0, "the flood's first messages are written")
        }

        // MARK: A console flood in one view holds up another view

        /// View A's two third-party iframes dispatch console events as fast as the forwarder
        /// passes them (500 a second each, ~32 KB each); view B, another page of the app, calls
        /// `Echo` every 20 ms. Every console line is written to standard output on the main actor.
        @Test(
            "a console flood in one view does not hold up another view's calls",
            .timeLimit(.minutes(1)), arguments: [0, 4 << 20])
        func consoleFloodStarvesOtherView(stdoutBytesPerSecond: Int) async throws {
            let attack = """
                var detail = JSON.stringify({level: 'log', kind: 'console', message: 'x'.repeat(8000), source: 'https://x.example/' + 'a'.repeat(24000), line: 1});
                setInterval(function () { for (var i = 0; i < 50; i++) window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: detail})); }, 10);
                """
            let (a, servers) = try await A19.framedPage(
                frames: 2, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let other = try LoopbackServer()
            defer { other.stop() }
            other.routes["/"] = .init(body: A18.plainPage)
            let b = try E2EHarness(allowing: [other.origin])
            try await b.load(other.origin + "/")
            let baseline = try await A18.probe(b, for: .seconds(1))
            let out = SlowStdout(bytesPerSecond: stdoutBytesPerSecond)
            try await a.run(A19.go)
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(b)
            await idle(.seconds(4))
            out.release()
            try await a.run("document.querySelectorAll('iframe').forEach(function (f) { f.remove(); });")
            let under = try? await A18.stopProbe(b)
            out.stop()
            A18.terminateWebProcess(a)
            print(
                "ATTACK21 console flood in view A, stdout \(stdoutBytesPerSecond == 0 ? "/dev/null" : "\(stdoutBytesPerSecond >> 20) MiB/s"): view B baseline \(baseline); under \(String(describing: under))"
            )
            await a.close()
            await b.close()
            A18.expectNotHeldUp(under, control: baseline, "view B's calls while view A's iframes flood the console")
        }

        // MARK: The console handler's world takes the relay's main-frame stamp

        /// Samples the bytes and messages a view's budget counts as the main frame's.
        final class MainShareSampler: @unchecked Sendable {
            let peakBytes = Atomic<Int>(0)
            let peakMessages = Atomic<Int>(0)
            private let running = Atomic<Bool>(true)
            init(_ core: GTKWebViewCore) {
                let thread = Thread { [self] in
                    while running.load(ordering: .relaxed) {
                        let (m, b) = core.inbound.withLock {
                            ($0.messages - $0.otherMessages, $0.bytes - $0.otherBytes)
                        }
                        if m > peakMessages.load(ordering: .relaxed) { peakMessages.store(m, ordering: .relaxed) }
                        if b > peakBytes.load(ordering: .relaxed) { peakBytes.store(b, ordering: .relaxed) }
                        usleep(1_000)
                    }
                }
                thread.start()
            }
            func stop() { running.store(false, ordering: .relaxed) }
        }

        /// `GTKWebViewCore.inboundShare(of:to:)` counts a string posted to *any* isolated-world
        /// handler as the main frame's when it starts with `"main "` (the relay's stamp). The
        /// console forwarder is such a handler and posts the page's event detail verbatim: a
        /// third-party iframe dispatching `bridgekit:console` events whose detail is
        /// `"main " + 32 K` draws on the main frame's reserve, past the others' half.
        @Test(
            "a third-party iframe's console events are not counted as the main frame's share of the budget",
            .timeLimit(.minutes(1)))
        func consoleEventsTakeMainFrameShare() async throws {
            let attack = """
                var line = JSON.stringify({level: 'log', kind: 'console', message: 'x'.repeat(8000), source: 'https://x.example/' + 'a'.repeat(24000), line: 1});
                var stamped = 'main ' + 'y'.repeat(32700);
                setInterval(function () { for (var i = 0; i < 25; i++) {
                  window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: line}));
                  window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: stamped})); } }, 10);
                """
            let (harness, servers) = try await A19.framedPage(
                frames: 12, attack: attack, configuration: A20.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let out = SlowStdout(bytesPerSecond: 0)
            let sampler = MainShareSampler(harness.view.core)
            defer { sampler.stop() }
            try await harness.run(A19.go)
            await idle(.milliseconds(300))
            try await A19.startCodeProbe(harness)
            await idle(.seconds(4))
            try await harness.run("document.querySelectorAll('iframe').forEach(function (f) { f.remove(); });")
            let (under, codes) = try await A19.stopCodeProbe(harness)
            out.stop()
            sampler.stop()
            let peakBytes = sampler.peakBytes.load(ordering: .relaxed)
            let peakMessages = sampler.peakMessages.load(ordering: .relaxed)
            print(
                "ATTACK21 console events stamped main: main-frame share peak \(peakMessages) messages, \(peakBytes >> 10) KiB; main frame's calls \(under); codes \(Set(codes))"
            )
            A18.terminateWebProcess(harness)
            await harness.close()
            #expect(
                peakBytes < 1 << 20,
                "the main frame's share held \(peakBytes >> 10) KiB while it posted only small calls")
            #expect(under.failed == 0, "main frame's calls failed: \(under.failed) \(Set(codes))")
        }

        // MARK: document.open and the console's page-world script

        /// The forwarder is idempotent when WebKit evaluates the document-start scripts again
        /// after `document.open()`; is the page-world script that wraps `console`? Each
        /// evaluation wrapped `console.log` again, each wrapper calling the one before: three
        /// opens wrote every line four times, and a page (or an ad script that rewrites its frame
        /// in a loop) ends up with a `console.log` that throws `RangeError` (call stack) or costs
        /// O(n).
        @Test(
            "after document.open() calls console.log still works and writes one line, not one per evaluation of the page-world script",
            .timeLimit(.minutes(1)), arguments: [3, 3000])
        func documentOpenWrapsConsoleAgain(opens: Int) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(
                body: """
                    <!doctype html><html><head><title>open</title></head><body><script>
                    setTimeout(function () {
                      for (var k = 0; k < \(opens); k++) { document.open(); document.write('<p>again</p>'); document.close(); }
                      setTimeout(function () {
                        var t = performance.now(), result;
                        try { console.log('after-open'); result = 'ok'; } catch (e) { result = String(e); }
                        document.title = 'done ' + result + ' ' + Math.round(performance.now() - t) + 'ms';
                      }, 300);
                    }, 300);
                    </script></body></html>
                    """)
            let console = try ConsoleLinesView()
            let view = console.view
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            try view.load(uri: server.origin + "/")
            #expect(waitUntil { recorder.titles.contains { $0?.hasPrefix("done") ?? false } })
            settle(.milliseconds(500))
            let title = recorder.titles.last { $0?.hasPrefix("done") ?? false } ?? nil
            let after = console.lines.filter { $0.contains("after-open") }.count
            print(
                "ATTACK21 console after \(opens) document.open(): page says \(String(describing: title)); lines written \(after)"
            )
            #expect(title?.hasPrefix("done ok") ?? false, "console.log: \(String(describing: title))")
            #expect(after == 1, "console.log('after-open') written \(after) times")
        }
    }
}
#endif
