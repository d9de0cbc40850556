#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 20 (on 259802c): the relay's flow control (docs/protocol.md, "Relay: flow control")
    /// and the view's inbound budget with its main-frame reserve (`GTKWebViewCore.InboundBudget`).
    /// Failing on 259802c: the page-world console handler (bridgehost registers it always) lets a
    /// third-party iframe exceed the budget with one message (app +1.1-1.6 GiB, main frame's calls
    /// busy, its callPage answers and cancels lost); the main frame's document notice counts as a
    /// subframe's and is dropped when that half is full; one iframe's small posts peg the app's
    /// CPU; forty iframes' 16 MiB bodies grow the app by ~0.5 GiB. Holding: child-frame churn.
    /// Fixed since: the console's handler is in an isolated world of its own behind a forwarder that
    /// passes only short strings at a bounded rate (`GTKConsoleOutput`); a read message's bytes are
    /// checked against its share (`InboundBudget.queue(bytes:share:)`); the document notice's
    /// handler is main-frame-only; a cancel or answer turned away busy is posted again. Known, not
    /// fixed (marked as known issues): the relay flood's CPU, and the forty frames' growth and
    /// another view's latency.
    @MainActor
    @Suite("Attack 20", .serialized)
    struct Attack20 {
        typealias A18 = Attack18
        typealias A19 = Attack19

        /// The app's CPU time (user + system) so far, in seconds.
        static func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }

        /// Samples a view's inbound budget on a thread of its own: the most messages and bytes of
        /// "others" seen, and how many samples found their half full.
        final class BudgetSampler: @unchecked Sendable {
            let peakOtherMessages = Atomic<Int>(0)
            let peakOtherBytes = Atomic<Int>(0)
            let fullSamples = Atomic<Int>(0)
            private let running = Atomic<Bool>(true)
            init(_ core: GTKWebViewCore) {
                let thread = Thread { [self] in
                    while running.load(ordering: .relaxed) {
                        let (m, b) = core.inbound.withLock { ($0.otherMessages, $0.otherBytes) }
                        if m > peakOtherMessages.load(ordering: .relaxed) {
                            peakOtherMessages.store(m, ordering: .relaxed)
                        }
                        if b > peakOtherBytes.load(ordering: .relaxed) { peakOtherBytes.store(b, ordering: .relaxed) }
                        if !core.inbound.withLock({ $0.admits(.others) }) { fullSamples.add(1, ordering: .relaxed) }
                        usleep(2_000)
                    }
                }
                thread.start()
            }
            func stop() { running.store(false, ordering: .relaxed) }
            var description: String {
                "others peak \(peakOtherMessages.load(ordering: .relaxed)) messages, \(peakOtherBytes.load(ordering: .relaxed) >> 20) MiB; half full in \(fullSamples.load(ordering: .relaxed)) samples"
            }
        }

        // MARK: Page-world handlers bypass the budget's half

        /// What a third-party iframe runs: `count` posts of a value with a `mib` MiB string straight
        /// to the page-world console handler (`bridgekitConsole`, `writesConsoleToStandardOutput`),
        /// which no relay bounds, `gap` ms apart.
        static func consoleFlood(mib: Int, count: Int, gap: Int) -> String {
            """
            var handlers = window.webkit && window.webkit.messageHandlers;
            var h = handlers && handlers.bridgekitConsole;
            var s = 'x'.repeat(\(mib) * 1048576);
            var e = JSON.stringify({level: 'log', kind: 'console', message: s});
            var n = 0;
            // An object (slow for the app to decode on its main thread), then at once a string (quick to
            // read, then waits while the main thread decodes the object), `count` times; where no
            // page-world handler is (the forwarder's world since attack 20), the same as console
            // events and console.log.
            (function one() { if (n++ >= \(count)) return;
              if (h) { h.postMessage({level: 'log', kind: 'console', message: s}); h.postMessage(s); }
              window.dispatchEvent(new CustomEvent('bridgekit:console', {detail: e}));
              console.log(s);
              setTimeout(one, \(gap)); })();
            """
        }

        static let consoleConfiguration = GTKWebViewConfiguration(writesConsoleToStandardOutput: true)

        /// A third-party iframe posts large values straight to the page-world console handler. The
        /// budget checks a message's share before it reads it (`InboundBudget.admits`), so one
        /// message of any size is admitted while "others" hold under 64 MiB: "others" alone then
        /// hold more than the view's 128 MiB, the app grows far past it, and the main frame's own
        /// posts are turned away busy (`memory_budget_exceeded`) while it waits for its handler.
        @Test(
            "a third-party iframe posting large values to the page-world console handler neither grows the app past the budget nor fails the main frame's calls",
            .timeLimit(.minutes(1)))
        func consoleHandlerBypassesBudget() async throws {
            let outcome = try await A19.mainUnderFlood(
                frames: 1, attack: Self.consoleFlood(mib: 160, count: 2, gap: 1500), seconds: 4,
                configuration: Self.consoleConfiguration)
            print(
                "ATTACK20 console handler: app peak growth +\(outcome.grownMiB) MiB; main baseline \(outcome.baseline); under attack \(outcome.under); codes \(Set(outcome.codes))"
            )
            #expect(outcome.grownMiB < 256, "app grew by \(outcome.grownMiB) MiB (the view's budget is 128 MiB)")
            #expect(outcome.under.failed == 0, "main frame calls failed: \(outcome.under.failed) \(Set(outcome.codes))")
        }

        /// The same bypass turns away the main frame's answer to the app's `callPage` (a post that is
        /// not a call, "lost" when turned away busy): the app's call waits for its timeout.
        @Test(
            "while a third-party iframe floods the page-world console handler, the main frame still answers the app's callPage",
            .timeLimit(.minutes(1)))
        func consoleHandlerLosesCallPageAnswer() async throws {
            let (harness, servers) = try await A19.framedPage(
                frames: 1, attack: Self.consoleFlood(mib: 160, count: 2, gap: 1500),
                configuration: Self.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            let before = try await harness.router.callPage("Ping", as: String.self, timeout: .seconds(3))
            try await harness.run(A19.go)
            await idle(.milliseconds(1200))
            // Two concurrent calls (one may pass between the flood's messages), each with 10 s: time
            // enough for the flood's messages to be handled, so a timeout means the answer was lost.
            async let first = Self.ping(harness)
            await idle(.milliseconds(150))
            async let second = Self.ping(harness)
            let outcomes = await [first, second]
            print("ATTACK20 callPage during console flood: before \(before); during \(outcomes)")
            A18.terminateWebProcess(harness)
            await harness.close()
            #expect(outcomes.allSatisfy { $0 == "pong" }, "callPage during the flood: \(outcomes)")
        }

        static func ping(_ harness: E2EHarness) async -> String {
            do {
                return try await harness.router.callPage("Ping", as: String.self, timeout: .seconds(10))
            } catch {
                return "error: \(error)"
            }
        }

        /// The same bypass turns away the main frame's cancel (lost when turned away busy): the
        /// page's aborted call settles as cancelled, the app's task runs on.
        @Test(
            "while a third-party iframe floods the page-world console handler, the main frame's cancel still reaches the app",
            .timeLimit(.minutes(1)))
        func consoleHandlerLosesCancel() async throws {
            let (harness, servers) = try await A19.framedPage(
                frames: 1, attack: Self.consoleFlood(mib: 160, count: 2, gap: 1500),
                configuration: Self.consoleConfiguration)
            defer { for server in servers { server.stop() } }
            try await harness.run(
                """
                window.__ac = []; window.__slowCodes = [];
                window.startSlow = function (n) { for (var i = 0; i < n; i++) { var ac = new AbortController(); window.__ac.push(ac);
                  WebBridge.call('Slow', {i: i}, {signal: ac.signal}).catch(function (e) { window.__slowCodes.push(String(e && e.code)); }); } };
                startSlow(20);
                """)
            await idle(.milliseconds(500))
            let running = harness.probe.runs(of: "Slow").count
            try await harness.run(A19.go)
            await idle(.milliseconds(1200))
            // Abort one call every 100 ms while the flood's messages wait.
            try await harness.run(
                "var k = 0; window.__abortTimer = setInterval(function () { if (k < window.__ac.length) window.__ac[k++].abort(); else clearInterval(window.__abortTimer); }, 100);"
            )
            await idle(.seconds(9))
            let cancelled = harness.probe.cancelledCallIDs.count
            let codes = try await harness.value("window.__slowCodes", as: [String].self)
            print(
                "ATTACK20 cancel during console flood: Slow running \(running); page settled \(codes.count) (\(Set(codes))); cancelled natively \(cancelled)"
            )
            A18.terminateWebProcess(harness)
            await harness.close()
            #expect(cancelled == running, "\(cancelled) of \(running) aborted Slow calls cancelled in the app")
        }

        /// Another web view's calls (view B, probed for 4 s, the calmer half counted) while view
        /// A's `frames` third-party iframes run `attack`, and the app's CPU time meanwhile.
        static func otherViewUnderFlood(
            frames: Int, attack: String, configuration: GTKWebViewConfiguration = GTKWebViewConfiguration()
        ) async throws -> (baseline: A18.Latency, under: A18.Latency, cpuSeconds: Double, postsRead: Int) {
            let (a, servers) = try await A19.framedPage(frames: frames, attack: attack, configuration: configuration)
            defer { for server in servers { server.stop() } }
            // Every message view A's router reads is one inbound record.
            let postsRead = Atomic<Int>(0)
            a.router.setTrafficObserver { record in
                if record.direction == .inbound { postsRead.add(1, ordering: .relaxed) }
            }
            let other = try LoopbackServer()
            defer { other.stop() }
            other.routes["/"] = .init(body: A18.plainPage)
            let b = try E2EHarness(allowing: [other.origin])
            try await b.load(other.origin + "/")
            let baseline = try await A18.probe(b, for: .seconds(1))
            let cpu0 = cpuSeconds()
            try await a.run(A19.go)
            await idle(.milliseconds(300))
            let under = try await A18.probe(b, for: .seconds(4))
            let cpu = cpuSeconds() - cpu0
            let read = postsRead.load(ordering: .relaxed)
            A18.terminateWebProcess(a)
            await a.close()
            await b.close()
            return (baseline, under, cpu, read)
        }

        /// A third-party iframe posts small values to the page-world console handler without
        /// pause (no relay, no reply: nothing slows it); another view of the app makes calls.
        @Test(
            "one third-party iframe flooding small posts neither starves another view nor pegs the app's CPU",
            .timeLimit(.minutes(1)), arguments: ["console", "relay"])
        func tinyFloodPegsApp(_ route: String) async throws {
            // console: the page-world console handler (no relay, no reply); relay: call-shaped
            // posts at the frame's relay (Attack 19's tiny flood, one frame).
            let attack =
                route == "console"
                ? """
                var handlers = window.webkit && window.webkit.messageHandlers;
                var h = handlers && handlers.bridgekitConsole;
                var m = {level: 'log', kind: 'console', message: 'x'.repeat(200)};
                setInterval(function () { for (var i = 0; i < 5000; i++) { if (h) h.postMessage(m); console.log(m.message); } }, 0);
                """ : A19.Flood.tiny.attack
            let (baseline, under, cpu, read) = try await Self.otherViewUnderFlood(
                frames: 1, attack: attack, configuration: route == "console" ? Self.consoleConfiguration : .init())
            print(
                "ATTACK20 \(route) tiny flood: other view baseline \(baseline); under \(under); app CPU \(cpu) s in ~4.3 s; the router read \(read) messages"
            )
            #expect(under.failed == 0 && under.unsettled == 0)
            A18.expectNotHeldUp(under, control: baseline, "other view's calls")
            // relay: the relay lets a frame post as fast as the app answers, and the app answered
            // a refused frame's posts at once: about 1.3 of 2 cores. Its answers are now paced
            // (`BridgeLimits.refusalsPerSecond`), so the frame waits in its own process.
            #expect(cpu < 2.2, "the app spent \(cpu) s of CPU in ~4.3 s on one iframe's posts")
            if route == "relay" {
                // 64 at once, then 100 a second for ~5 s, and the relay's syncs: about 550 (about
                // 2,600 when only senders no policy admits were paced, tens of thousands unpaced).
                #expect(read < 1500, "the app read \(read) of the refused frame's posts")
            }
        }

        // MARK: Fresh relay windows from frame churn

        /// A third-party iframe creates child frames (srcdoc, its own origin) in waves; each child
        /// gets a relay of its own with an empty window and posts one 16 MiB (UTF-8) body of CJK
        /// characters at once; the children are removed and new ones made. Every removed frame's
        /// unread window is forgotten, so the number of bodies in flight into the app is bounded by
        /// nothing but the app's reading speed.
        @Test(
            "a third-party iframe churning child frames, each posting one 16 MiB body, does not grow the app far past the view's budget",
            .timeLimit(.minutes(1)))
        func childFrameChurnGrowsApp() async throws {
            let attack = """
                window.big = '{"v":1,"kind":"call","id":"c","task":"Nope","options":{"s":"' + '\\u4e00'.repeat(5 * 1048576) + '"}}';
                var waves = 0;
                (function wave() {
                  if (waves++ >= 12) return;
                  var made = [];
                  for (var i = 0; i < 20; i++) {
                    var f = document.createElement('iframe');
                    f.srcdoc = '<script>window.dispatchEvent(new CustomEvent("webbridge:post", {detail: parent.big}));<\\/script>';
                    document.body.appendChild(f); made.push(f);
                  }
                  setTimeout(function () { made.forEach(function (f) { f.remove(); }); wave(); }, 250);
                })();
                """
            let outcome = try await A19.mainUnderFlood(frames: 1, attack: attack, seconds: 5)
            print(
                "ATTACK20 child frame churn: app peak growth +\(outcome.grownMiB) MiB; main under attack \(outcome.under); codes \(Set(outcome.codes))"
            )
            #expect(outcome.grownMiB < 384, "app grew by \(outcome.grownMiB) MiB (the view's budget is 128 MiB)")
            #expect(outcome.under.failed == 0, "main frame calls failed: \(outcome.under.failed) \(Set(outcome.codes))")
        }

        /// 40 third-party iframes each post one 16 MiB (UTF-8) CJK body at the same moment, again
        /// and again (each relay's window holds one such body).
        @Test(
            "forty third-party iframes each posting one 16 MiB CJK body do not grow the app far past the view's budget",
            .timeLimit(.minutes(1)))
        func fortyFramesWideBodies() async throws {
            let attack = """
                var big = '{"v":1,"kind":"call","id":"c","task":"Nope","options":{"s":"' + '\\u4e00'.repeat(5 * 1048576) + '"}}';
                setInterval(function () { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: big})); }, 0);
                """
            let outcome = try await A19.mainUnderFlood(frames: 40, attack: attack, seconds: 4)
            let grown = outcome.grownMiB
            print(
                "ATTACK20 40 frames x 16 MiB CJK: app peak growth +\(grown) MiB; main under attack \(outcome.under); codes \(Set(outcome.codes))"
            )
            #expect(outcome.under.failed == 0, "main frame calls failed: \(outcome.under.failed) \(Set(outcome.codes))")
            // WebKit's copies of what each frame's relay lets be unread (one body per frame, copied
            // into the app before BridgeKit can refuse it) grow with the number of frames: not
            // fixed (SECURITY.md, "Limits").
            withKnownIssue(
                "WebKit's copies of every frame's unread body count against no view-wide bound", isIntermittent: true
            ) {
                #expect(grown < 384, "app grew by \(grown) MiB (the view's budget is 128 MiB)")
            }
        }

        /// Another web view of the app while view A's forty third-party iframes post 16 MiB CJK
        /// bodies: B shares the app's main thread and GTK thread with A.
        @Test(
            "forty third-party iframes posting 16 MiB CJK bodies in one view do not starve another view's calls",
            .timeLimit(.minutes(1)))
        func fortyFramesStarveOtherView() async throws {
            let attack = """
                var big = '{"v":1,"kind":"call","id":"c","task":"Nope","options":{"s":"' + '\\u4e00'.repeat(5 * 1048576) + '"}}';
                setInterval(function () { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: big})); }, 0);
                """
            let (baseline, under, _, _) = try await Self.otherViewUnderFlood(frames: 40, attack: attack)
            print("ATTACK20 other view while 40 frames flood view A: baseline \(baseline); under \(under)")
            #expect(under.failed == 0 && under.unsettled == 0)
            // The app's GTK thread decodes every frame's posts in arrival order before BridgeKit
            // sees them: not fixed (SECURITY.md, "Limits").
            withKnownIssue(
                "the GTK thread copies forty frames' bodies ahead of another view's messages", isIntermittent: true
            ) {
                A18.expectNotHeldUp(under, control: baseline, "other view's calls")
            }
        }

        // MARK: The main frame's document notice counts as a subframe's

        static let heavyRefill = """
            var n = 0; var tail = '","task":"Nope","options":{"a":[' + '0,'.repeat(19999) + '0]}}';
            function one() { n++; window.dispatchEvent(new CustomEvent('webbridge:post', {detail: '{"v":1,"kind":"call","id":"h' + n + tail})); }
            window.addEventListener('webbridge:message', function () { one(); });
            for (var i = 0; i < 4096; i++) one();
            """

        /// The document notice (`js/webbridge-document.js`) is posted by the main frame only, in
        /// the relay's world, but its text (`{"v":1,"kind":"document",...}`) has no `main ` stamp:
        /// `deliver` counts it against the share of subframes and page-world handlers, and, posted
        /// without reply, drops it when that half is full. Sixteen third-party iframes fill the
        /// half (each relay-bounded; measured: 64 MiB, full in most samples), and while it is
        /// full the page replaces its document through a `javascript:` URL (no commit reported:
        /// the notice is the only signal of the new document). Default configuration, no
        /// page-world handler.
        @Test(
            "while third-party iframes fill the subframes' half of the budget, a javascript: URL document still starts a new generation (its notice is not dropped)",
            .timeLimit(.minutes(1)))
        func documentNoticeDroppedUnderIframeFlood() async throws {
            let mainHead =
                "<script>window.__docA = true; window.__held = false; WebBridge.handle('Hold', function () { window.__held = true; return new Promise(function () {}); });</script>"
            let (harness, servers) = try await A19.framedPage(frames: 16, attack: Self.heavyRefill, mainHead: mainHead)
            defer { for server in servers { server.stop() } }
            let call = PageChangeAttack.startPageCall(harness.router, "Hold", timeout: .seconds(12))
            try await harness.waitFor("window.__held === true")
            let id = try await harness.value(PageChangeAttack.firstNativeCallID, as: String.self)
            let generationA = harness.router.pageGeneration
            let budget = BudgetSampler(harness.view.core)
            defer { budget.stop() }
            try await harness.run(A19.go)
            await idle(.milliseconds(800))
            let commitsBefore = harness.loadEvents.filter { $0 == .committed }.count
            // The iframes' flood keeps the half full only while they live and the app's main thread
            // is behind (`budget` above); the iframes end with the document. Holding the half full
            // across the replacement stands for the moment the notice is read while their queue is
            // still there: 64 MiB, what the flood holds there.
            let core = harness.view.core
            let held = GTKWebViewCore.InboundBudget.maxBytes / 2
            core.inbound.withLock { $0.queued(bytes: held, share: .others) }
            defer { core.inbound.withLock { $0.handled(bytes: held, share: .others) } }
            try await harness.run(PageChangeAttack.javascriptURLNavigation)
            try await harness.waitFor("document.title === 'js'")
            try #require(try await harness.isTrue("window.__docA === undefined"), "a new document replaced document A")
            // The notice may come well after the title on a loaded machine (a fixed 500 ms failed
            // once beside a build); a dropped notice never comes.
            _ = await eventually(timeout: .seconds(5)) { harness.router.pageGeneration > generationA }
            let generationAfter = harness.router.pageGeneration
            let commits = harness.loadEvents.filter { $0 == .committed }.count - commitsBefore
            // The new document's own call, and its forged answer to A's native call.
            try await harness.run(
                "window.__own = 'pending'; WebBridge.call('Echo', {n: 1}).then(function () { window.__own = 'ok'; }, function (e) { window.__own = 'failed:' + (e && e.code); });"
            )
            try await harness.run(PageChangeAttack.forgeReply(id, data: "forged by the javascript: document"))
            let outcome = await call.value
            try? await harness.waitFor("window.__own !== 'pending'", timeout: .seconds(5))
            let own = try await harness.value("window.__own", as: String.self)
            print(
                "ATTACK20 notice under iframe flood: \(budget.description); commits \(commits); generation \(generationA) -> \(generationAfter); A's native call -> \(outcome); new document's own call -> \(own)"
            )
            A18.terminateWebProcess(harness)
            await harness.close()
            #expect(generationAfter > generationA, "the javascript: document started no generation")
            #expect(outcome == "navigated", "A's call got \(outcome) from the document that replaced it")
            #expect(own == "ok", "the new document's own call: \(own)")
        }
    }
}
#endif
