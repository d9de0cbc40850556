#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 25 (a helper, on ebb78b3): calls from iframes whose origin IS allowed
    /// (`allowsSubframes: true`), and progress (after settling, floods, to subframes, across
    /// navigations, re-entrant callbacks). Found and fixed: an answer to an iframe's call reached
    /// the iframe's next document of the same origin (the relay now serves one document); a
    /// subframe document that went away left its calls running, so an iframe reloading with calls
    /// in flight filled `maxPendingCalls` and `maxHeldBytes` (its relay now cancels them on a
    /// trusted `pagehide`); live allowed iframes filled `maxHeldBytes` for the main frame
    /// (subframes' calls now hold at most half of it); progress sent by parallel workers at once
    /// grew the app by about 780 MiB (progress and events now wait for a place in the router's
    /// outbound window before they are encoded).
    @MainActor
    @Suite("Attack 25: allowed iframes and progress")
    struct Attack25 {
        // MARK: Pages

        /// The frame page (served at `/frame` by every server). Query: `name` (its label), `nest`
        /// (the URL of an iframe it embeds), `run` (a script it runs once loaded). It runs any string
        /// posted to it (`toFrame`), and reports to the top window: `{frame, ready}` once loaded, and
        /// `{frame, k, ok, data | code, details, progressCount}` for each `fcall`.
        static let framePage = E2EPage.html(
            title: "frame",
            head: """
                <script>
                var q = new URLSearchParams(location.search);
                var name = q.get('name') || 'f';
                window.__raw = [];
                window.addEventListener('webbridge:message', function (e) {
                  window.__raw.push(typeof e.detail === 'string' ? e.detail : JSON.stringify(e.detail)); });
                function tell(o) { o.frame = name; try { top.postMessage(o, '*'); } catch (e) {} }
                function fcall(key, task, options, settings) {
                  settings = settings || {};
                  var n = 0;
                  var user = settings.onProgress;
                  settings.onProgress = function (d) { n++; if (user) { return user(d); } };
                  return WebBridge.call(task, options, settings).then(
                    function (v) { tell({k: key, ok: true, data: v, progressCount: n}); },
                    function (e) { tell({k: key, ok: false, code: e && e.code, details: e && e.details, progressCount: n}); });
                }
                window.addEventListener('message', function (e) {
                  if (typeof e.data === 'string') { try { (0, eval)(e.data); } catch (err) { tell({error: String(err)}); } }
                });
                window.addEventListener('load', function () {
                  if (q.get('nest')) { var f = document.createElement('iframe'); f.src = q.get('nest'); document.body.appendChild(f); }
                  tell({ready: true, href: location.href});
                  if (q.get('run')) { try { (0, eval)(q.get('run')); } catch (err) { tell({error: String(err)}); } }
                });
                </script>
                """)

        /// The main page: collects the frames' reports in `__out[frame + ':' + key]` (`__cnt` counts
        /// them) and `__ready[frame]`; `addFrame(id, src, attrs)`, `toFrame(id, code)`.
        static let mainPage = E2EPage.html(
            title: "main",
            head: """
                <script>
                window.__m = []; window.__out = {}; window.__cnt = {}; window.__ready = {};
                window.addEventListener('message', function (e) {
                  var d = e.data; if (!d || typeof d !== 'object') { return; }
                  window.__m.push(d);
                  if (d.ready) { window.__ready[d.frame] = (window.__ready[d.frame] || 0) + 1; }
                  if (d.k !== undefined && d.ok !== undefined) {
                    var key = d.frame + ':' + d.k; window.__out[key] = d; window.__cnt[key] = (window.__cnt[key] || 0) + 1;
                  }
                });
                function addFrame(id, src, attrs) {
                  var f = document.createElement('iframe'); f.id = id; f.src = src;
                  if (attrs) { for (var a in attrs) { f.setAttribute(a, attrs[a]); } }
                  document.body.appendChild(f);
                }
                function toFrame(id, code) { document.getElementById(id).contentWindow.postMessage(code, '*'); }
                </script>
                """)

        struct FrameOutcome: Decodable {
            var ok: Bool
            var data: JSONValue?
            var code: String?
            var details: JSONValue?
            var progressCount: Int?
        }

        // MARK: Tasks

        /// `Hold`: waits up to two minutes unless cancelled; records its run and how it ended.
        static func hold(_ probe: TaskProbe, policy: AccessPolicy) -> some BridgeTask {
            ClosureTask(name: "Hold", policy: policy) { (options: JSONValue, context: CallContext) -> NoResult in
                probe.recordRun("Hold", options, context)
                do {
                    try await Task.sleep(for: .seconds(120))
                } catch {
                    probe.recordEnd(context.callID, cancelled: Task.isCancelled)
                    throw error
                }
                probe.recordEnd(context.callID, cancelled: false)
                return NoResult()
            }
        }

        /// `Tick`: sends `count` progress values (`{i, pad}` with `bytes` of padding), `intervalMs`
        /// apart, then replies `"done"`.
        static func tick(_ probe: TaskProbe, policy: AccessPolicy) -> some BridgeTask {
            ClosureTask(name: "Tick", policy: policy) { (options: JSONValue, context: CallContext) -> String in
                probe.recordRun("Tick", options, context)
                let count = Int(options.int("count") ?? 5)
                let interval = Int(options.int("intervalMs") ?? 0)
                let pad = String(repeating: "x", count: Int(options.int("bytes") ?? 0))
                do {
                    for index in 0..<count {
                        try await context.progress(["i": .int(Int64(index)), "pad": .string(pad)])
                        if interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                    }
                } catch {
                    probe.recordEnd(context.callID, cancelled: true)
                    throw error
                }
                probe.recordEnd(context.callID, cancelled: false)
                return "done"
            }
        }

        /// `Stubborn`: ignores cancellation; sends `count` progress values 30 ms apart, logging
        /// whether each was accepted ("ok") or thrown back ("threw"), then replies `"done"`.
        static func stubborn(_ probe: TaskProbe, log: Locked<[String]>, policy: AccessPolicy) -> some BridgeTask {
            ClosureTask(name: "Stubborn", policy: policy) { (options: JSONValue, context: CallContext) -> String in
                probe.recordRun("Stubborn", options, context)
                let count = Int(options.int("count") ?? 40)
                for index in 0..<count {
                    do {
                        try await context.progress(["i": .int(Int64(index))])
                        log.update { $0.append("ok") }
                    } catch {
                        log.update { $0.append("threw") }
                    }
                    await Task.detached { try? await Task.sleep(for: .milliseconds(30)) }.value
                }
                return "done"
            }
        }

        /// `Burst`: sends `count` progress values of `bytes` padding all at once (one child task
        /// each, as a task with parallel workers would), then replies with how many were accepted.
        static func burst(_ probe: TaskProbe, policy: AccessPolicy) -> some BridgeTask {
            ClosureTask(name: "Burst", policy: policy) { (options: JSONValue, context: CallContext) -> Int in
                probe.recordRun("Burst", options, context)
                let count = Int(options.int("count") ?? 100)
                let pad = String(repeating: "z", count: Int(options.int("bytes") ?? 0))
                return await withTaskGroup(of: Int.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            do {
                                try await context.progress(["i": .int(Int64(index)), "pad": .string(pad)])
                                return 1
                            } catch {
                                return 0
                            }
                        }
                    }
                    var accepted = 0
                    for await one in group { accepted += one }
                    return accepted
                }
            }
        }

        /// Servers a (the app's origin, main page), b (allowed) and c (not allowed), each serving the
        /// frame page; a harness allowing main frame a, with `Hold`, `Tick`, `Stubborn` and `Open`
        /// (a `Record` task) callable by frames of a and b, subframes included.
        @MainActor
        final class Scene {
            let a: LoopbackServer
            let b: LoopbackServer
            let c: LoopbackServer
            let harness: E2EHarness
            let stubbornLog = Locked<[String]>([])

            @MainActor
            init() throws {
                a = try LoopbackServer()
                b = try LoopbackServer()
                c = try LoopbackServer()
                for server in [a, b, c] { server.routes["/frame"] = .init(body: Attack25.framePage) }
                a.routes["/"] = .init(body: Attack25.mainPage)
                a.routes["/two"] = .init(body: Attack25.mainPage)
                let policy = AccessPolicy.origins(
                    [OriginPattern(a.origin), OriginPattern(b.origin)], allowsSubframes: true)
                let log = stubbornLog
                harness = try E2EHarness(allowing: [a.origin]) { router, probe in
                    try router.register(Attack25.hold(probe, policy: policy))
                    try router.register(Attack25.tick(probe, policy: policy))
                    try router.register(Attack25.stubborn(probe, log: log, policy: policy))
                    try router.register(Attack25.burst(probe, policy: policy))
                    try router.register(E2ETasks.record(probe, name: "Open", policy: policy))
                }
            }

            @MainActor
            func close() async {
                await harness.close()
                a.stop()
                b.stop()
                c.stop()
            }

            func server(_ which: String) -> LoopbackServer { which == "same" ? a : b }

            /// Adds frame "x" of origin b whose every document runs `calls`, then, `every` ms
            /// later, replaces itself with its next document, `rounds` times.
            func addReloadingFrame(calls: String, rounds: Int, every: Int) async throws {
                let run =
                    calls + """
                        setTimeout(function () { var r = +(q.get('round') || 0); if (r < \(rounds)) {
                          location.replace('/frame?name=x&round=' + (r + 1) + '&run=' + encodeURIComponent(q.get('run'))); } }, \(every));
                        """
                try await addFrame(
                    "x",
                    b.origin + "/frame?name=x&round=0&run="
                        + (run.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            }

            /// The outcome of one main-frame call of `Open` (with 1 MiB of options when `padded`).
            func mainFrameCall(padded: Bool) async throws -> PageOutcome {
                let pad = padded ? ", pad: new Array(1048577).join('m')" : ""
                try await harness.run("e2eCall('main', 'Open', {from: 'main'\(pad)})")
                try await harness.waitForSettled(["main"])
                return try await harness.outcome("main")
            }

            @MainActor
            func addFrame(_ id: String, _ src: String, attrs: String = "null") async throws {
                try await harness.run("addFrame(\(E2EPage.jsLiteral(id)), \(E2EPage.jsLiteral(src)), \(attrs))")
            }

            /// Five allowed iframes (`f0`…`f4`, of origin b), each calling `Hold` 13 times with 1 MiB
            /// of options at once, within its relay's limits; returns once each is ready.
            @MainActor
            func addFiveFramesHoldingMegabytes() async throws {
                let run =
                    "var big = new Array(1048577).join('y'); for (var i = 0; i < 13; i++) { fcall('h' + i, 'Hold', {pad: big}); }"
                let query = run.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                for index in 0..<5 {
                    try await addFrame("f\(index)", b.origin + "/frame?name=f\(index)&run=" + query)
                }
                for index in 0..<5 { try await waitReady("f\(index)") }
            }

            @MainActor
            func waitReady(_ frame: String, count: Int = 1, timeout: Duration = e2eDeadline) async throws {
                try await harness.waitFor(
                    "(window.__ready[\(E2EPage.jsLiteral(frame))] || 0) >= \(count)", timeout: timeout)
            }

            @MainActor
            func toFrame(_ id: String, _ code: String) async throws {
                try await harness.run("toFrame(\(E2EPage.jsLiteral(id)), \(E2EPage.jsLiteral(code)))")
            }

            @MainActor
            func outcome(_ frame: String, _ key: String, timeout: Duration = e2eDeadline) async throws -> FrameOutcome {
                let path = E2EPage.jsLiteral(frame + ":" + key)
                try await harness.waitFor("window.__out[\(path)] != null", timeout: timeout)
                return try await harness.value("window.__out[\(path)]")
            }

            @MainActor
            func count(_ frame: String, _ key: String) async throws -> Int {
                try await harness.value("window.__cnt[\(E2EPage.jsLiteral(frame + ":" + key))] || 0")
            }
        }

        // MARK: 1. Allowed iframes

        @Test(
            "an allowed iframe removed from the DOM mid-call: its call's task is cancelled, not left running",
            .timeLimit(.minutes(1)), arguments: ["same", "cross"])
        func removedIframeCallIsCancelled(_ which: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.server(which).origin + "/frame?name=x")
            try await scene.waitReady("x")
            try await scene.toFrame("x", "fcall('h', 'Hold', {})")
            #expect(await eventually { harness.probe.runs(of: "Hold").count == 1 })
            try await harness.run("document.getElementById('x').remove()")
            let cancelled = await eventually(timeout: .seconds(5)) { harness.probe.cancelledCallIDs.count == 1 }
            #expect(cancelled, "the task of a call whose \(which)-origin iframe was removed still runs after 5 s")

            await scene.close()
        }

        @Test(
            "an allowed iframe that navigates mid-call: its task is cancelled and the reply never reaches the next document",
            .timeLimit(.minutes(1)), arguments: ["same", "cross"])
        func navigatedIframeCallEnds(_ which: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.server(which).origin + "/frame?name=x")
            try await scene.waitReady("x")
            // A call to Tick (replies after about 0.6 s) and one to Hold, then the frame moves on.
            try await scene.toFrame(
                "x",
                "fcall('t', 'Tick', {count: 30, intervalMs: 20}); fcall('h', 'Hold', {});"
                    + " setTimeout(function () { location.replace('/frame?name=x'); }, 100);")
            try await scene.waitReady("x", count: 2)
            await idle(.seconds(1))
            // The new document saw nothing of the old one's calls.
            try await scene.toFrame(
                "x", "tell({k: 'seen', ok: true, data: [window.__events.length, window.__rx.length]})")
            let seen = try await scene.outcome("x", "seen")
            try await scene.toFrame("x", "tell({k: 'raw', ok: true, data: window.__raw})")
            let raw = try await scene.outcome("x", "raw")
            #expect(seen.data == [0, 0], "the next document of the iframe received: \(String(describing: raw.data))")
            #expect(try await scene.count("x", "t") == 0, "the old document's call reported nothing")
            // The new document calls normally.
            try await scene.toFrame("x", "fcall('o', 'Open', {n: 1})")
            #expect(try await scene.outcome("x", "o").ok)
            let cancelled = await eventually(timeout: .seconds(4)) {
                harness.probe.cancelledCallIDs.count(where: { id in
                    harness.probe.runs(of: "Hold").contains { $0.callID == id }
                }) == 1
            }
            #expect(cancelled, "the Hold task of the navigated-away iframe document still runs")

            await scene.close()
        }

        @Test(
            "a parent navigates an allowed iframe to another origin mid-call: the call's reply never reaches that document",
            .timeLimit(.minutes(1)), arguments: ["c", "a", "b"])
        func iframeReplyNeverReachesNavigatedDocument(_ target: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.b.origin + "/frame?name=x")
            try await scene.waitReady("x")
            // Tick replies "done" after about 0.6 s; Open echoes a secret at once, but after Tick's
            // 30 progress values would be too quick: it is called 0.5 s after.
            try await scene.toFrame(
                "x",
                "fcall('t', 'Tick', {count: 30, intervalMs: 20}); setTimeout(function () { fcall('s', 'Open', {secret: 'b-only-7f3a'}); }, 450);"
            )
            await idle(.milliseconds(440))
            let next = (target == "c" ? scene.c : target == "a" ? scene.a : scene.b).origin + "/frame?name=y"
            try await harness.run("document.getElementById('x').src = \(E2EPage.jsLiteral(next))")
            try await scene.waitReady("y")
            await idle(.seconds(1))
            try await harness.run("toFrame('x', \"tell({k: 'raw', ok: true, data: window.__raw})\")")
            let raw = try await scene.outcome("y", "raw")
            #expect(
                raw.data == [],
                "the document of origin \(target) that replaced the allowed iframe (origin b) read: \(String(describing: raw.data))"
            )
            await scene.close()
        }

        @Test(
            "main frame: final replies in flight while the page navigates to a same-origin page never reach that page",
            .timeLimit(.minutes(3)))
        func mainFrameRepliesAcrossNavigation() async throws {
            let scene = try Scene()
            let harness = scene.harness
            var leaks: [String] = []
            for round in 0..<10 {
                try await harness.load(scene.a.origin + "/")
                let mark = harness.loadEvents.count
                // 60 calls whose replies spread over about half a second; the page leaves midway.
                try await harness.run(
                    """
                    for (var i = 0; i < 60; i++) { e2eCall('c' + i, 'Tick', {count: i * 3, intervalMs: 2}); }
                    setTimeout(function () { location.href = '/two'; }, \(40 + round * 25));
                    """)
                try await harness.waitForLoad(after: mark, what: "round \(round)")
                await idle(.milliseconds(700))
                let events = try await harness.json("window.__events.concat(window.__rx)")
                if case .array(let list) = events, !list.isEmpty {
                    leaks.append("round \(round): \(list.count) \(list.prefix(2))")
                }
            }
            #expect(leaks.isEmpty, "replies of the previous document reached the next: \(leaks)")
            await scene.close()
        }

        @Test(
            "an allowed iframe reloading itself with calls in flight does not fill maxPendingCalls: the main frame's calls go through",
            .timeLimit(.minutes(3)))
        func reloadingIframeExhaustsPendingCalls() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            // Each document of the frame makes 64 Hold calls (its relay's window) and reloads 150 ms later.
            try await scene.addReloadingFrame(
                calls: "for (var i = 0; i < 64; i++) { fcall('h' + i, 'Hold', {}); }", rounds: 72, every: 150)
            let filled = await eventually(timeout: .seconds(120), interval: .milliseconds(50)) {
                harness.probe.runs(of: "Hold").count >= 4096
            }
            let runs = harness.probe.runs(of: "Hold").count
            let cancelled = harness.probe.cancelledCallIDs.count
            let main = try await scene.mainFrameCall(padded: false)
            #expect(
                main.ok,
                "main frame call failed \(main.code ?? "?") after one allowed iframe's reloads left \(runs) Hold calls running (\(cancelled) cancelled, filled: \(filled))"
            )

            await scene.close()
        }

        @Test(
            "an allowed iframe reloading with 1 MiB calls in flight does not fill maxHeldBytes: the main frame's calls go through",
            .timeLimit(.minutes(2)))
        func reloadingIframeExhaustsHeldBytes() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            // Each document of the frame makes 12 Hold calls of 1 MiB options and reloads 400 ms later.
            try await scene.addReloadingFrame(
                calls:
                    "var big = new Array(1048577).join('y'); for (var i = 0; i < 12; i++) { fcall('h' + i, 'Hold', {pad: big}); }",
                rounds: 7, every: 400)
            try await scene.waitReady("x", count: 8, timeout: .seconds(60))
            await idle(.seconds(1))
            let runs = harness.probe.runs(of: "Hold").count
            let held = harness.router.heldBytes
            let main = try await scene.mainFrameCall(padded: true)
            #expect(
                main.ok,
                "main frame call failed \(main.code ?? "?") while one allowed iframe's earlier documents held \(runs) Hold calls (\(held) bytes held)"
            )

            await scene.close()
        }

        @Test(
            "five live allowed iframes, each within its relay's limits, hold 1 MiB calls: the main frame's 1 MiB call still goes through",
            .timeLimit(.minutes(2)))
        func liveIframesExhaustHeldBytes() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFiveFramesHoldingMegabytes()
            _ = await eventually(timeout: .seconds(20)) { harness.probe.runs(of: "Hold").count >= 62 }
            await idle(.seconds(1))
            let runs = harness.probe.runs(of: "Hold").count
            let held = harness.router.heldBytes
            let main = try await scene.mainFrameCall(padded: true)
            // Failed `memory_budget_exceeded` before subframes' calls were held to half of the budget.
            #expect(
                main.ok,
                "main frame call failed \(main.code ?? "?") while five live allowed iframes held \(runs) Hold calls (\(held) bytes held)"
            )
            #expect(harness.router.heldBytes <= BridgeLimits().maxHeldBytes)
            await scene.close()
        }

        @Test(
            "the main frame navigating settles and cancels an allowed iframe's call",
            .timeLimit(.minutes(1)))
        func mainNavigationCancelsIframeCall() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.b.origin + "/frame?name=x")
            try await scene.waitReady("x")
            try await scene.toFrame("x", "fcall('h', 'Hold', {})")
            #expect(await eventually { harness.probe.runs(of: "Hold").count == 1 })
            try await harness.load(scene.a.origin + "/two")
            #expect(await eventually(timeout: .seconds(5)) { harness.probe.cancelledCallIDs.count == 1 })
            await scene.close()
        }

        @Test(
            "an allowed iframe aborting 200 calls: each settles once, cancelled, and no task is left running",
            .timeLimit(.minutes(1)))
        func iframeAbortFlood() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.b.origin + "/frame?name=x")
            try await scene.waitReady("x")
            try await scene.toFrame(
                "x",
                """
                for (var i = 0; i < 200; i++) { (function (i) { var c = new AbortController();
                  fcall('a' + i, 'Hold', {i: i}, {signal: c.signal});
                  if (i % 3 === 0) { c.abort(); } else { setTimeout(function () { c.abort(); }, i % 3 === 1 ? 0 : 60); } })(i); }
                """)
            try await harness.waitFor(
                "Object.keys(window.__out).filter(function (k) { return k.indexOf('x:a') === 0; }).length === 200")
            let outs = try await harness.value("window.__out", as: [String: FrameOutcome].self)
            let counts = try await harness.value("window.__cnt", as: [String: Int].self)
            for i in 0..<200 {
                #expect(outs["x:a\(i)"]?.code == "cancelled", "a\(i)")
                #expect(counts["x:a\(i)"] == 1, "a\(i) settled once")
            }
            let allEnded = await eventually(timeout: .seconds(5)) {
                harness.probe.cancelledCallIDs.count == harness.probe.runs(of: "Hold").count
            }
            #expect(
                allEnded,
                "\(harness.probe.runs(of: "Hold").count) Hold runs, \(harness.probe.cancelledCallIDs.count) cancelled")
            await scene.close()
        }

        @Test(
            "frames nested across allowed and disallowed origins, and a sandboxed frame, are judged by their own origin",
            .timeLimit(.minutes(1)))
        func nestedAndOpaqueFrames() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            let run =
                "&run="
                + (("fcall('o', 'Open', {from: name})").addingPercentEncoding(withAllowedCharacters: .alphanumerics)
                    ?? "")
            func nested(_ server: LoopbackServer, _ name: String) -> String {
                (server.origin + "/frame?name=" + name + run).addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics) ?? ""
            }
            try await scene.addFrame("bn", scene.b.origin + "/frame?name=bn" + run + "&nest=" + nested(scene.c, "cn"))
            try await scene.addFrame("cw", scene.c.origin + "/frame?name=cw" + run + "&nest=" + nested(scene.b, "bw"))
            try await scene.addFrame("sb", scene.a.origin + "/frame?name=sb" + run, attrs: "{sandbox: 'allow-scripts'}")
            #expect(try await scene.outcome("bn", "o").ok, "allowed iframe")
            let cn = try await scene.outcome("cn", "o")
            #expect(
                cn.code == "forbidden" && cn.details?.string("reason") == "origin_not_allowed", "disallowed in allowed")
            let cw = try await scene.outcome("cw", "o")
            #expect(cw.code == "forbidden" && cw.details?.string("reason") == "origin_not_allowed", "disallowed")
            #expect(
                try await scene.outcome("bw", "o").ok,
                "allowed origin nested in a disallowed frame (policy is by origin)")
            let sb = try await scene.outcome("sb", "o")
            #expect(sb.code == "forbidden" && sb.details?.string("reason") == "no_origin", "sandboxed frame")
            let sources = harness.probe.runs(of: "Open").map(\.source)
            #expect(sources.count == 2 && sources.allSatisfy { $0 == .subframe(scene.b.origin) })
            await scene.close()
        }

        // MARK: 2. Progress

        @Test(
            "progress of a subframe call is not delivered, the call settles once; past the limit it settles progress_limit_exceeded",
            .timeLimit(.minutes(2)))
        func subframeProgress() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await scene.addFrame("x", scene.b.origin + "/frame?name=x")
            try await scene.waitReady("x")
            try await scene.toFrame("x", "fcall('p', 'Tick', {count: 5})")
            let p = try await scene.outcome("x", "p")
            #expect(p.ok && p.data == "done" && p.progressCount == 0)
            try await scene.toFrame("x", "fcall('q', 'Tick', {count: 10001})")
            let q = try await scene.outcome("x", "q", timeout: .seconds(60))
            #expect(q.code == "progress_limit_exceeded")
            await idle(.milliseconds(300))
            #expect(try await scene.count("x", "p") == 1)
            #expect(try await scene.count("x", "q") == 1)
            let undelivered = harness.traffic.matching(.outbound, "progress").filter {
                $0.reason == .subframeNotDelivered
            }
            #expect(undelivered.count >= 5)
            // The main frame got none of it.
            #expect(try await harness.value("window.__rx.length", as: Int.self) == 0)
            await scene.close()
        }

        @Test(
            "progress a task keeps sending after its call was aborted or timed out never reaches onProgress",
            .timeLimit(.minutes(1)), arguments: ["abort", "timeout"])
        func progressAfterSettle(_ how: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            let settings =
                how == "abort"
                ? "{signal: c.signal, onProgress: function () { tick(); if (window.__pc === 3) { c.abort(); } }}"
                : "{timeout: 150, onProgress: tick}"
            try await harness.run(
                """
                window.__pc = 0; window.__after = 0;
                function tick() { if (window.__settled.s) { window.__after++; } window.__pc++; }
                var c = new AbortController();
                e2eCall('s', 'Stubborn', {count: 40}, \(settings));
                """)
            try await harness.waitForSettled(["s"])
            #expect(await eventually(timeout: .seconds(5)) { scene.stubbornLog.value.count == 40 })
            await idle(.milliseconds(200))
            let outcome = try await harness.outcome("s")
            #expect(outcome.code == (how == "abort" ? "cancelled" : "timeout"))
            #expect(try await harness.value("window.__settleCount.s", as: Int.self) == 1)
            #expect(try await harness.value("window.__after", as: Int.self) == 0, "onProgress after the call settled")
            let log = scene.stubbornLog.value
            #expect(log.suffix(20).allSatisfy { $0 == "threw" }, "native accepted progress long after settling: \(log)")
            await scene.close()
        }

        @Test(
            "an onProgress that throws, re-enters the bridge and aborts its own call: every call settles exactly once",
            .timeLimit(.minutes(1)))
        func reentrantProgressCallbacks() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await harness.run(
                """
                window.__n1 = 0; window.__n2 = 0;
                e2eCall('t', 'Tick', {count: 5}, {onProgress: function () { window.__n1++; throw new Error('boom'); }});
                var c2 = new AbortController();
                e2eCall('r', 'Tick', {count: 50, intervalMs: 20}, {signal: c2.signal, onProgress: function () {
                  window.__n2++;
                  e2eCall('r' + window.__n2, 'Tick', {count: 2}, {onProgress: function () { throw 1; }});
                  if (window.__n2 === 3) { c2.abort(); WebBridge.call('Open', {inside: true}); }
                }});
                """)
            try await harness.waitForSettled(["t", "r", "r1", "r2", "r3"])
            await idle(.seconds(1))
            #expect(try await harness.outcome("t").data == "done")
            #expect(try await harness.value("window.__n1", as: Int.self) == 5)
            #expect(try await harness.outcome("r").code == "cancelled")
            #expect(try await harness.value("window.__n2", as: Int.self) == 3)
            for key in ["r1", "r2", "r3"] { #expect(try await harness.outcome(key).data == "done", "\(key)") }
            let counts = try await harness.value("window.__settleCount", as: [String: Int].self)
            #expect(counts == ["t": 1, "r": 1, "r1": 1, "r2": 1, "r3": 1])
            #expect(harness.probe.runs(of: "Open").count == 1)
            await scene.close()
        }

        @Test(
            "progress while the main frame navigates (same or another origin, native or page initiated) never reaches the new document",
            .timeLimit(.minutes(1)), arguments: ["native-same", "page-same", "native-cross", "page-cross"])
        func progressAcrossNavigation(_ how: String) async throws {
            let scene = try Scene()
            let harness = scene.harness
            scene.c.routes["/two"] = .init(body: Attack25.mainPage)
            try await harness.load(scene.a.origin + "/")
            try await harness.run(
                "e2eCall('p', 'Tick', {count: 5000, intervalMs: 1, bytes: 100}, {onProgress: function () {}})")
            try await harness.waitFor("window.__rx.filter(function (m) { return m.kind === 'progress'; }).length >= 5")
            let target = (how.hasSuffix("cross") ? scene.c : scene.a).origin + "/two"
            if how.hasPrefix("page") {
                let mark = harness.loadEvents.count
                try await harness.run("location.href = \(E2EPage.jsLiteral(target))")
                try await harness.waitForLoad(after: mark, what: "page navigation")
            } else {
                try await harness.load(target)
            }
            await idle(.milliseconds(1500))
            let rx = try await harness.value("window.__rx.length + window.__events.length", as: Int.self)
            #expect(rx == 0, "the new document received \(rx) messages of the old one's call")
            #expect(try await harness.value("location.pathname", as: String.self) == "/two")
            #expect(harness.probe.cancelledCallIDs.count == 1, "Tick was stopped by the navigation")
            await scene.close()
        }

        @Test(
            "a task sending 4,000 progress values of 64 KiB at once (parallel workers): the app stays bounded, the call settles once",
            .timeLimit(.minutes(4)))
        func concurrentProgressBurst() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            await idle(.milliseconds(300))
            let baseline = ProcessMemory.residentBytes
            ProcessMemory.resetPeak()
            try await harness.run(
                "window.__seen = 0; e2eCall('b', 'Burst', {count: 4000, bytes: 65536}, {onProgress: function () { window.__seen++; }})"
            )
            try await harness.waitFor(
                "window.__settled.b != null", timeout: .seconds(200), interval: .milliseconds(100))
            let peak = ProcessMemory.peakResidentBytes
            let outcome = try await harness.outcome("b")
            let seen = try await harness.value("window.__seen", as: Int.self)
            #expect(outcome.data == 4000)
            #expect(seen == 4000)
            await idle(.seconds(2))
            let after = ProcessMemory.residentBytes
            // A second burst: does the app grow again (held for good) or reuse what it took?
            try await harness.run(
                "e2eCall('b2', 'Burst', {count: 4000, bytes: 65536}, {onProgress: function () { window.__seen++; }})")
            try await harness.waitFor(
                "window.__settled.b2 != null", timeout: .seconds(200), interval: .milliseconds(100))
            await idle(.seconds(2))
            let afterSecond = ProcessMemory.residentBytes
            // 782 MiB before the router's outbound window (``BridgeLimits/maxOutboundInFlight``).
            #expect(
                peak - baseline < 64 * 1_048_576,
                "app grew by \((peak - baseline) / 1_048_576) MiB at peak for 250 MiB of progress; \((after - baseline) / 1_048_576) MiB 2 s after; \((afterSecond - baseline) / 1_048_576) MiB after a second burst"
            )
            #expect(try await harness.value("window.__settleCount.b", as: Int.self) == 1)
            await scene.close()
        }

        @Test(
            "native emitting 4,000 events of 64 KiB at once (parallel workers): the app stays bounded, every event arrives",
            .timeLimit(.minutes(4)))
        func concurrentEventBurst() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await harness.run("window.__ev = 0; WebBridge.on('burst', function () { window.__ev++; });")
            await idle(.milliseconds(300))
            let baseline = ProcessMemory.residentBytes
            ProcessMemory.resetPeak()
            let router = harness.router
            let pad = String(repeating: "e", count: 65536)
            let sent = try await withDeadline("emit burst", timeout: .seconds(200)) {
                await withTaskGroup(of: Int.self) { group in
                    for index in 0..<4000 {
                        group.addTask {
                            do {
                                try await router.emit(
                                    "burst", data: ["i": .int(Int64(index)), "pad": .string(pad)] as JSONValue)
                                return 1
                            } catch {
                                return 0
                            }
                        }
                    }
                    var total = 0
                    for await one in group { total += one }
                    return total
                }
            }
            try await harness.waitFor("window.__ev >= \(sent)", timeout: .seconds(60), interval: .milliseconds(100))
            let peak = ProcessMemory.peakResidentBytes
            #expect(sent == 4000)
            #expect(
                peak - baseline < 64 * 1_048_576,
                "app grew by \((peak - baseline) / 1_048_576) MiB at peak for 250 MiB of events")
            await scene.close()
        }

        @Test(
            "an onProgress that rewrites the document (document.open/write/close): the call still settles exactly once",
            .timeLimit(.minutes(1)))
        func progressCallbackDocumentOpen() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            try await harness.run(
                """
                window.__n = 0;
                e2eCall('d', 'Tick', {count: 6, intervalMs: 30}, {onProgress: function () {
                  window.__n++;
                  if (window.__n === 2) { document.open(); document.write('<p>rewritten</p>'); document.close(); }
                }});
                """)
            try await harness.waitForSettled(["d"])
            await idle(.milliseconds(500))
            #expect(try await harness.outcome("d").data == "done")
            #expect(try await harness.value("window.__n", as: Int.self) == 6)
            #expect(try await harness.value("window.__settleCount.d", as: Int.self) == 1)
            await scene.close()
        }

        @Test(
            "a 10,000-message progress flood of 16 KiB values: the call settles, every value arrives once, the app stays bounded",
            .timeLimit(.minutes(4)))
        func progressFlood() async throws {
            let scene = try Scene()
            let harness = scene.harness
            try await harness.load(scene.a.origin + "/")
            await idle(.milliseconds(300))
            let baseline = ProcessMemory.residentBytes
            ProcessMemory.resetPeak()
            try await harness.run(
                """
                window.__seen = 0; window.__order = true;
                e2eCall('f', 'Tick', {count: 10000, bytes: 16384}, {onProgress: function (d) {
                  if (d.i !== window.__seen) { window.__order = false; } window.__seen++; }});
                """)
            try await harness.waitFor(
                "window.__settled.f != null", timeout: .seconds(200), interval: .milliseconds(100))
            let peak = ProcessMemory.peakResidentBytes
            #expect(try await harness.outcome("f").data == "done")
            #expect(try await harness.value("window.__seen", as: Int.self) == 10000)
            #expect(try await harness.value("window.__order", as: Bool.self))
            #expect(peak - baseline < 256 * 1_048_576, "app grew by \((peak - baseline) / 1_048_576) MiB")
            // One more than the limit settles the call with the limit's code, once.
            try await harness.run("e2eCall('g', 'Tick', {count: 10001}, {onProgress: function () {}})")
            try await harness.waitFor(
                "window.__settled.g != null", timeout: .seconds(120), interval: .milliseconds(100))
            #expect(try await harness.outcome("g").code == "progress_limit_exceeded")
            await idle(.milliseconds(300))
            #expect(try await harness.value("window.__settleCount.g", as: Int.self) == 1)
            await scene.close()
        }
    }
}
#endif
