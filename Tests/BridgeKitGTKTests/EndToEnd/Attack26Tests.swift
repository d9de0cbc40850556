#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 26 (a helper, on 3b38013): the router's outbound window (`maxOutboundInFlight`) and
    /// subframes' shares of `maxPendingCalls` and of the fire-and-forget queue, in real WebKitGTK
    /// with hostile pages and allowed iframes. Reuses attack 25's pages, tasks and scene. Each
    /// test failed on 3b38013 but the ones the report says held up; fixed since: F1 (events
    /// waiting for a place reached the next document), F2 (an iframe stopping or outrunning the
    /// relay's pagehide cancels), F3 (an iframe's notices holding up the main frame's). F4 (an
    /// allowed iframe's flood of large calls slows the main frame's) is a known issue.
    @MainActor
    @Suite("Attack 26: outbound window and subframe shares")
    struct Attack26 {
        typealias Scene = Attack25.Scene

        /// Emits `count` events named `name` at once (one Swift task each, as an app emitting from
        /// many places would), each `{i, secret}`; returns how many `emit`s returned (delivered)
        /// and how many threw.
        nonisolated static func emitBurst(
            _ router: BridgeRouter, name: String, count: Int, secret: String
        ) async -> (delivered: Int, threw: Int) {
            await withTaskGroup(of: Bool.self) { group in
                for index in 0..<count {
                    group.addTask {
                        do {
                            try await router.emit(
                                name, data: ["i": .int(Int64(index)), "secret": .string(secret)] as JSONValue)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                var delivered = 0
                var threw = 0
                for await ok in group { if ok { delivered += 1 } else { threw += 1 } }
                return (delivered, threw)
            }
        }

        // MARK: 1. The outbound window

        @Test(
            "events emitted while document A is on screen, waiting for a place in the outbound window, never reach the next document (same origin, or another origin the policy does not list)",
            .timeLimit(.minutes(2)), arguments: ["same", "cross"])
        func waitingEventsReachNextDocument(_ how: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            scene.c.routes["/two"] = .init(body: Attack25.mainPage)
            let next = (how == "same" ? scene.a : scene.c).origin + "/two"
            try await harness.load(scene.a.origin + "/")
            // Document A: a listener that takes 100 ms per event, so the window's 16 places stay
            // taken while the app's other events wait for one.
            try await harness.run(
                """
                window.__a = 0;
                WebBridge.on('private', function () { window.__a++; var t = Date.now() + 100; while (Date.now() < t) {} });
                """)
            await idle(.milliseconds(200))
            let router = harness.router
            let burst = Task.detached {
                await Attack26.emitBurst(router, name: "private", count: 120, secret: "for document A")
            }
            // Every one of the 120 emits was made while A is on screen.
            try await harness.waitFor("window.__a >= 2", timeout: .seconds(10))
            let generationA = router.pageGeneration
            try await harness.load(next, timeout: .seconds(60))
            let generationB = router.pageGeneration
            let (delivered, threw) = try await withDeadline("emit burst", timeout: .seconds(60)) { await burst.value }
            await idle(.seconds(1))
            let reachedB = try await harness.value(
                "window.__rx.filter(function (m) { return m.kind === 'event' && m.name === 'private'; }).length",
                as: Int.self)
            #expect(try await harness.value("location.pathname", as: String.self) == "/two")
            #expect(
                reachedB == 0,
                "document B (generation \(generationB)) received \(reachedB) of the 120 events emitted while document A (generation \(generationA)) was on screen; emit returned for \(delivered), threw for \(threw)"
            )
            await scene.close()
        }

        @Test(
            "a page that hangs in an event listener, killed and reloaded (the browser's 'page unresponsive' path): the next document's events still arrive",
            .timeLimit(.minutes(2)))
        func hungPageStallsWindowAfterTermination() async throws {
            let server = try LoopbackServer()
            server.routes["/"] = .init(body: Attack25.mainPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            try await harness.run("WebBridge.on('hang', function () { for (;;) {} });")
            await idle(.milliseconds(200))
            let router = harness.router
            // One event that never returns, and 19 more behind it: the window's 16 places and 4 waiting.
            let stuck = Task.detached { await Attack26.emitBurst(router, name: "hang", count: 20, secret: "x") }
            await idle(.milliseconds(500))
            let core = harness.view.core
            GTKThread.perform { webkit_web_view_terminate_web_process(core.webView) }
            await idle(.milliseconds(500))
            let stuckEnded =
                (try? await withDeadline("stuck emits after termination", timeout: .seconds(10)) { await stuck.value })
            try await harness.load(server.origin + "/", timeout: .seconds(20))
            try await harness.run("window.__late = 0; WebBridge.on('late', function () { window.__late++; });")
            let clock = ContinuousClock()
            let emitStart = clock.now
            let emitted = Task.detached { () -> String in
                do {
                    try await router.emit("late", data: ["n": 1] as JSONValue)
                    return "ok"
                } catch {
                    return "\(error)"
                }
            }
            let arrived = (try? await harness.waitFor("window.__late >= 1", timeout: .seconds(10))) != nil
            let emitTime = clock.now - emitStart
            print(
                "attack26 killed page: stuck emits \(String(describing: stuckEnded)); late event arrived \(arrived) in \(emitTime)"
            )
            #expect(
                stuckEnded != nil,
                "the 20 emits to the killed page had not returned 10 s after its web process was terminated")
            #expect(
                arrived,
                "an event emitted to the reloaded document never arrived (\(emitTime)): the killed page still holds the outbound window's places; stuck emits: \(String(describing: stuckEnded))"
            )
            if arrived { _ = await emitted.value }
            await harness.close()
            _ = try? await withDeadline("emits after close", timeout: .seconds(10)) { await emitted.value }
            _ = try? await withDeadline("stuck emits after close", timeout: .seconds(10)) { await stuck.value }
            server.stop()
        }

        @Test(
            "close() while 100 events wait for a place behind a slow page: every emit returns, and none after close reports delivery",
            .timeLimit(.minutes(2)))
        func closeWhileSendersWait() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await harness.run(
                "window.__a = 0; WebBridge.on('slow', function () { window.__a++; var t = Date.now() + 200; while (Date.now() < t) {} });"
            )
            await idle(.milliseconds(200))
            let router = harness.router
            let burst = Task.detached { await Attack26.emitBurst(router, name: "slow", count: 100, secret: "s") }
            try await harness.waitFor("window.__a >= 1", timeout: .seconds(10))
            let clock = ContinuousClock()
            let closing = clock.now
            await scene.close()
            let closeTime = clock.now - closing
            let result = try? await withDeadline("emits after close", timeout: .seconds(15)) { await burst.value }
            let returned = clock.now - closing
            print(
                "attack26 close: close() took \(closeTime); emits returned \(returned) after it began: \(String(describing: result))"
            )
            #expect(
                result != nil,
                "the emits waiting for a place had not all returned 15 s after close() (close took \(closeTime))")
            if let result {
                #expect(result.delivered + result.threw == 100)
                #expect(
                    result.delivered <= 17,
                    "\(result.delivered) emits reported delivered, \(result.threw) threw, all returned \(returned) after close() began (close took \(closeTime))"
                )
            }
        }

        // MARK: 2. Subframe shares

        @Test(
            "an allowed iframe's queued fire-and-forget calls do not hold up the main frame's notices (its share is half of the queue's places, not of its turns)",
            .timeLimit(.minutes(2)))
        func subframeNotifiesDelayMainFrameNotice() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.b.origin + "/frame?name=x")
            try await scene.waitReady("x")
            // 30 notices of a task that runs long (each takes its full 1 s turn).
            try await scene.toFrame("x", "for (var i = 0; i < 30; i++) { WebBridge.notify('Hold', {i: i}); }")
            #expect(await eventually(timeout: .seconds(5)) { harness.probe.runs(of: "Hold").count >= 1 })
            let clock = ContinuousClock()
            let sent = clock.now
            try await harness.run("WebBridge.notify('Open', {from: 'main'})")
            let ran = await eventually(timeout: .seconds(45), interval: .milliseconds(20)) {
                harness.probe.runs(of: "Open").count >= 1
            }
            let latency = clock.now - sent
            let holds = harness.probe.runs(of: "Hold").count
            print("attack26 f&f: main-frame notice ran after \(latency), behind \(holds - 1) iframe notices")
            #expect(ran)
            #expect(
                latency < .seconds(3),
                "the main frame's fire-and-forget call ran \(latency) after it was sent, behind \(holds - 1) of an allowed iframe's queued notices"
            )
            await scene.close()
        }

        @Test(
            "an allowed iframe that stops its own pagehide (a capture listener), or calls from its own pagehide listener, and reloads: its old documents' calls are cancelled or never leave",
            .timeLimit(.minutes(2)), arguments: ["stop", "late", "control"])
        func pagehideSuppressedLeaksSubframeCalls(_ mode: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            // Each document: 64 Hold calls (the relay's window), then a reload 300 ms later; 4
            // documents. "stop": a page-world capture listener stops the pagehide before the
            // relay's. "late": the calls are made from the page's own pagehide listener, after
            // the relay's. "control": neither.
            let calls = "for (var i = 0; i < 64; i++) { fcall('h' + i, 'Hold', {}); }"
            let script: String
            switch mode {
            case "stop":
                script =
                    "window.addEventListener('pagehide', function (e) { e.stopImmediatePropagation(); }, true);" + calls
            case "late":
                script = "window.addEventListener('pagehide', function () { " + calls + " });"
            default:
                script = calls
            }
            try await scene.addReloadingFrame(calls: script, rounds: 3, every: 300)
            try await scene.waitReady("x", count: 4, timeout: .seconds(30))
            let expected = mode == "late" ? 192 : 256
            _ = await eventually(timeout: .seconds(10)) { harness.probe.runs(of: "Hold").count >= expected }
            await idle(.seconds(1))
            let runs = harness.probe.runs(of: "Hold").count
            let cancelled = harness.probe.cancelledCallIDs.count
            print("attack26 pagehide \(mode): \(runs) Hold runs, \(cancelled) cancelled")
            // Only the last document's 64 calls may still run. "late": the calls made from the
            // page's own pagehide listener never leave the relay (answered `navigated` there).
            #expect(
                runs - cancelled <= 64 && runs >= (mode == "late" ? 0 : 256),
                "the frame's 3 earlier documents left \(runs - cancelled) of \(runs) Hold calls running (\(cancelled) cancelled): the relay's pagehide cancels never went"
            )
            if mode == "late" { #expect(runs == 0, "calls made after the document ended ran: \(runs)") }
            await scene.close()
        }

        @Test(
            "an allowed iframe that stops its own pagehide and reloads 33 times with 64 calls each: another allowed iframe's call still goes through",
            .timeLimit(.minutes(3)))
        func pagehideSuppressedFillsSubframeShare() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            await idle(.milliseconds(300))
            let baseline = ProcessMemory.residentBytes
            try await scene.addReloadingFrame(
                calls: "window.addEventListener('pagehide', function (e) { e.stopImmediatePropagation(); }, true);"
                    + "for (var i = 0; i < 64; i++) { fcall('h' + i, 'Hold', {}); }",
                rounds: 33, every: 250)
            try await scene.waitReady("x", count: 34, timeout: .seconds(90))
            _ = await eventually(timeout: .seconds(20)) { harness.probe.runs(of: "Hold").count >= 2048 }
            await idle(.seconds(1))
            let runs = harness.probe.runs(of: "Hold").count
            let cancelled = harness.probe.cancelledCallIDs.count
            let grown = (ProcessMemory.residentBytes - baseline) / 1_048_576
            // Another allowed iframe, a well-behaved one of the app's own origin.
            try await scene.addFrame("y", scene.a.origin + "/frame?name=y")
            try await scene.waitReady("y")
            try await scene.toFrame("y", "fcall('o', 'Open', {from: 'y'})")
            let other = try await scene.outcome("y", "o")
            let main = try await scene.mainFrameCall(padded: false)
            #expect(main.ok, "main frame: \(main.code ?? "?")")
            #expect(
                other.ok,
                "a well-behaved allowed iframe's call failed \(other.code ?? "?"): one iframe's earlier documents left \(runs - cancelled) Hold calls running (\(runs) run, \(cancelled) cancelled; app +\(grown) MiB)"
            )
            await scene.close()
        }

        @Test(
            "five allowed iframes fill the subframes' half of maxHeldBytes with 1 MiB calls; the main frame navigates: every byte and place is given back",
            .timeLimit(.minutes(2)))
        func mainNavigationReleasesSubframeShare() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFiveFramesHoldingMegabytes()
            _ = await eventually(timeout: .seconds(20)) { harness.probe.runs(of: "Hold").count >= 30 }
            await idle(.seconds(1))
            let heldBefore = harness.router.heldBytes
            let runs = harness.probe.runs(of: "Hold").count
            try await harness.load(scene.a.origin + "/two")
            let released = await eventually(timeout: .seconds(10)) { harness.router.heldBytes == 0 }
            let heldAfter = harness.router.heldBytes
            // A new allowed iframe's 1 MiB calls (as many as the half holds) all go through.
            let again =
                "var big = new Array(1048577).join('z'); for (var i = 0; i < 13; i++) { fcall('g' + i, 'Open', {pad: big}); }"
            try await scene.addFrame(
                "n",
                scene.b.origin + "/frame?name=n&run="
                    + (again.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            try await scene.waitReady("n")
            var failures: [String] = []
            for index in 0..<13 {
                let outcome = try await scene.outcome("n", "g\(index)")
                if !outcome.ok { failures.append(outcome.code ?? "?") }
            }
            print(
                "attack26 main navigation: \(runs) Hold runs held \(heldBefore / 1_048_576) MiB before, \(heldAfter) bytes after; new iframe failures \(failures)"
            )
            #expect(released, "\(heldAfter) bytes still held after the main frame navigated")
            #expect(failures.isEmpty, "a new iframe's calls failed: \(failures)")
            await scene.close()
        }

        @Test(
            "150 iframes of an origin the policy does not list, each keeping 64 calls of 16 KiB unread: the held refusals stay bounded and the main frame is served",
            .timeLimit(.minutes(3)))
        func manyRefusedFramesHoldRefusals() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            await idle(.milliseconds(300))
            let baseline = ProcessMemory.residentBytes
            ProcessMemory.resetPeak()
            let run = """
                var big = new Array(16385).join('r'); window.__done = 0;
                for (var i = 0; i < 64; i++) { WebBridge.call('Open', {pad: big}).then(null, function () { window.__done++; }); }
                """
            let query = run.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            for index in 0..<150 {
                try await scene.addFrame("r\(index)", scene.c.origin + "/frame?name=r\(index)&run=" + query)
            }
            _ = try? await harness.waitFor(
                "Object.keys(window.__ready).length >= 150", timeout: .seconds(60), interval: .milliseconds(50))
            await idle(.seconds(2))
            let clock = ContinuousClock()
            let start = clock.now
            let main = try await scene.mainFrameCall(padded: false)
            let mainTime = clock.now - start
            let peak = ProcessMemory.peakResidentBytes
            let now = ProcessMemory.residentBytes
            let ready = try await harness.value("Object.keys(window.__ready).length", as: Int.self)
            print(
                "attack26 refusals: \(ready) frames ready x 64 calls; main call \(main.ok) in \(mainTime); app peak +\((peak - baseline) / 1_048_576) MiB, now +\((now - baseline) / 1_048_576) MiB"
            )
            #expect(main.ok)
            #expect(mainTime < .seconds(2))
            #expect(peak - baseline < 128 * 1_048_576, "app grew by \((peak - baseline) / 1_048_576) MiB at peak")
            await scene.close()
        }

        @Test(
            "calls from srcdoc, about:blank, sandboxed and nested iframes are all charged to the subframes, never to the main frame",
            .timeLimit(.minutes(1)))
        func oddFramesAreSubframes() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await harness.run(
                """
                var call = "<script>WebBridge.call('Open', {k: KIND}).then(null, function (e) { parent.postMessage({k: KIND, code: e.code}, '*'); });<\\/script>";
                function add(kind, setup) { var f = document.createElement('iframe'); setup(f, call.replace(/KIND/g, JSON.stringify(kind))); document.body.appendChild(f); return f; }
                add('srcdoc', function (f, c) { f.srcdoc = c; });
                add('sandboxed', function (f, c) { f.setAttribute('sandbox', 'allow-scripts'); f.srcdoc = c; });
                add('sandboxed-same', function (f, c) { f.setAttribute('sandbox', 'allow-scripts allow-same-origin'); f.srcdoc = c; });
                var blank = add('blank', function () {});
                setTimeout(function () { try { blank.contentWindow.WebBridge.call('Open', {k: 'blank'}); } catch (e) { window.__blankError = String(e); } }, 300);
                add('nested', function (f) { f.src = '/frame?name=n&run=' + encodeURIComponent("WebBridge.call('Open', {k: 'nested-inner'})") + '&nest=' + encodeURIComponent('/frame?name=nn&run=' + encodeURIComponent("WebBridge.call('Open', {k: 'nested'})")); });
                """)
            await idle(.seconds(3))
            let runs = harness.probe.runs(of: "Open")
            let seen = runs.map { "\($0.options.string("k") ?? "?"):\($0.source.isMainFrame ? "main" : "sub")" }
            print("attack26 odd frames: \(seen.sorted())")
            #expect(!runs.isEmpty)
            #expect(runs.allSatisfy { !$0.source.isMainFrame }, "charged to the main frame: \(seen)")
            await scene.close()
        }

        /// Runs 20 sequential main-frame `Open` calls and returns their latencies in ms (page clock).
        @MainActor
        static func mainLatencies(_ harness: E2EHarness, key: String) async throws -> [Double] {
            try await harness.run(
                """
                window.__lat_\(key) = null;
                (async function () { var out = [];
                  for (var i = 0; i < 20; i++) { var t = performance.now();
                    try { await WebBridge.call('Open', {i: i}); } catch (e) { out.push(-1); continue; }
                    out.push(performance.now() - t); }
                  window.__lat_\(key) = out; })();
                """)
            try await harness.waitFor("window.__lat_\(key) != null", timeout: .seconds(60), interval: .milliseconds(20))
            return try await harness.value("window.__lat_\(key)", as: [Double].self)
        }

        @Test(
            "an allowed iframe keeping 64 calls of 256 KiB or 1 MiB in flight without pause: the main frame's calls stay prompt (median under 250 ms)",
            .timeLimit(.minutes(2)), arguments: ["allowed", "allowed-1m", "refused"])
        func subframeFloodMainLatency(_ which: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            let quiet = try await Attack26.mainLatencies(harness, key: "quiet")
            let server = which.hasPrefix("allowed") ? scene.b : scene.c
            let size = which == "allowed-1m" ? 1_048_577 : 262_145
            let run = """
                var big = new Array(\(size)).join('f'); window.__n = 0;
                function again() { window.__n++; WebBridge.call('Open', {pad: big}).then(again, again); }
                for (var i = 0; i < 64; i++) { again(); }
                """
            try await scene.addFrame(
                "x",
                server.origin + "/frame?name=x&run="
                    + (run.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            try await scene.waitReady("x")
            await idle(.seconds(1))
            let opensBefore = harness.probe.runs(of: "Open").count
            let busy = try await Attack26.mainLatencies(harness, key: "busy")
            let opensDuring = harness.probe.runs(of: "Open").count - opensBefore
            let quietMax = quiet.max() ?? 0
            let busyMax = busy.max() ?? 0
            let busyMedian = busy.sorted()[busy.count / 2]
            print(
                "attack26 \(which) flood: main latency quiet max \(Int(quietMax)) ms; during flood median \(Int(busyMedian)) ms, max \(Int(busyMax)) ms; \(opensDuring) Open runs meanwhile"
            )
            #expect(!busy.contains(-1), "main-frame calls failed during the flood")
            // The shares bound an iframe's places and bytes, not its turns: the main frame's calls
            // wait behind an allowed iframe's bodies on WebKit's one reading thread and the app's
            // (quiet: about 10 ms; 256 KiB bodies: median 302-578 ms, 1 MiB: 776-983 ms on the
            // 7 December machine). Not fixed (SECURITY.md, "Limits"); a refused origin's flood
            // does not hold the main frame up.
            let judged = {
                #expect(
                    busyMedian < 250,
                    "main-frame call latency during an iframe's flood: median \(Int(busyMedian)) ms, max \(Int(busyMax)) ms (quiet: max \(Int(quietMax)) ms); \(opensDuring) Open runs meanwhile"
                )
            }
            if which == "refused" {
                judged()
            } else {
                withKnownIssue(
                    "an allowed iframe's flood of large calls holds up the main frame's calls", isIntermittent: true
                ) {
                    judged()
                }
            }
            await scene.close()
        }
    }
}
#endif
