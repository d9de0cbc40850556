#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Who may call: frames, origins, and what a page script can forge.
    @MainActor
    @Suite("Frames and origins")
    struct FrameSecurity {
        /// The frame page: makes three calls and one forged post, and reports each outcome to the
        /// parent with `postMessage` (`{frame, step, ok, data | code, details}`).
        static let framePage = E2EPage.html(
            title: "frame",
            head: """
                <script>
                var name = location.search.slice(1);
                function report(step, p) {
                  p.then(function (v) { parent.postMessage({frame: name, step: step, ok: true, data: v}, '*'); },
                    function (e) { parent.postMessage({frame: name, step: step, ok: false, code: e.code, details: e.details}, '*'); });
                }
                report('default', WebBridge.call('Record', {from: name}));
                report('open', WebBridge.call('Open', {from: name}));
                report('whoami', WebBridge.call('WhoAmI', {from: name}));
                window.dispatchEvent(new CustomEvent('webbridge:post', {detail: JSON.stringify({
                  origin: 'http://evil.example', mainFrame: true,
                  body: JSON.stringify({v: 1, kind: 'call', id: 'forged-' + name, task: 'WhoAmI', options: {forged: true}})})}));
                window.dispatchEvent(new CustomEvent('webbridge:post', {detail: {origin: 'http://evil.example', mainFrame: true,
                  body: JSON.stringify({v: 1, kind: 'call', task: 'WhoAmI', options: {forgedObject: true}})}}));
                </script>
                """)

        /// A main page at `a` with a same-origin iframe and an iframe from `b`.
        static func mainPage(crossOrigin: String) -> String {
            E2EPage.html(
                title: "main",
                head: """
                    <script>
                    window.__frames = {};
                    window.addEventListener('message', function (e) { window.__frames[e.data.frame + ':' + e.data.step] = e.data; });
                    </script>
                    """,
                body: """
                    <iframe src="/frame?same"></iframe><iframe src="\(crossOrigin)/frame?cross"></iframe>
                    """)
        }

        struct FrameReport: Decodable {
            var ok: Bool
            var data: JSONValue?
            var code: String?
            var details: JSONValue?
        }

        @Test(
            "R27 default policy refuses subframe calls (forbidden, subframe) without running the task; a task allowing subframes answers each frame",
            .timeLimit(.minutes(1)))
        func r27SubframePolicy() async throws {
            let a = try LoopbackServer()
            let b = try LoopbackServer()
            defer {
                a.stop()
                b.stop()
            }
            a.routes["/"] = .init(body: Self.mainPage(crossOrigin: b.origin))
            a.routes["/frame"] = .init(body: Self.framePage)
            b.routes["/frame"] = .init(body: Self.framePage)
            let harness = try E2EHarness(allowing: [a.origin]) { router, probe in
                try router.register(
                    E2ETasks.record(
                        probe, name: "Open",
                        policy: .origins([OriginPattern(a.origin), OriginPattern(b.origin)], allowsSubframes: true)))
            }
            try await harness.load(a.origin + "/")
            try await harness.waitFor("Object.keys(window.__frames).length === 6")
            let reports = try await harness.value("window.__frames", as: [String: FrameReport].self)

            for frame in ["same", "cross"] {
                let refused = try #require(reports["\(frame):default"])
                #expect(!refused.ok)
                #expect(refused.code == "forbidden", "\(frame) default policy")
                #expect(refused.details?.string("reason") == "subframe", "\(frame) reason")
                let open = try #require(reports["\(frame):open"])
                #expect(open.ok, "\(frame) task allowing subframes")
                #expect(open.data == ["from": .string(frame)], "the reply reached the frame that asked")
            }
            #expect(harness.probe.runs(of: "Record").isEmpty, "a refused task never runs")
            let openSources = harness.probe.runs(of: "Open").map { ($0.options.string("from") ?? "?", $0.source) }
            #expect(openSources.count == 2)
            for (frame, source) in openSources {
                #expect(source == MessageSource.subframe(frame == "same" ? a.origin : b.origin), "\(frame) sender")
            }
            let refusals = harness.traffic.matching(.inbound, "call", task: "Record")
            #expect(refusals.map(\.outcome) == ["forbidden", "forbidden"])
            #expect(refusals.map(\.reason) == [.refused("subframe"), .refused("subframe")])

            // The main frame itself may call the default-policy task.
            try await harness.run("e2eCall('main', 'Record', {from: 'main'})")
            try await harness.waitForSettled(["main"])
            #expect(try await harness.outcome("main").ok)
            #expect(harness.probe.runs(of: "Record").map(\.source) == [.mainFrame(a.origin)])
            await harness.close()
        }

        @Test(
            "the relay stamps origin and frame itself: forged webbridge:post envelopes change nothing; the page world cannot post directly",
            .timeLimit(.minutes(1)))
        func forgedPostsAndPageWorld() async throws {
            let a = try LoopbackServer()
            let b = try LoopbackServer()
            defer {
                a.stop()
                b.stop()
            }
            a.routes["/"] = .init(body: Self.mainPage(crossOrigin: b.origin))
            a.routes["/frame"] = .init(body: Self.framePage)
            b.routes["/frame"] = .init(body: Self.framePage)
            let harness = try E2EHarness(allowing: [a.origin]) { router, probe in
                try router.register(
                    E2ETasks.record(
                        probe, name: "Open", policy: .origins([OriginPattern(a.origin)], allowsSubframes: true)))
            }
            try await harness.load(a.origin + "/")
            try await harness.waitFor("Object.keys(window.__frames).length === 6")

            // WhoAmI (any origin, subframes allowed) saw each frame as the relay read it.
            let reports = try await harness.value("window.__frames", as: [String: FrameReport].self)
            #expect(reports["same:whoami"]?.data == ["origin": .string(a.origin), "mainFrame": false])
            #expect(reports["cross:whoami"]?.data == ["origin": .string(b.origin), "mainFrame": false])
            // Open allows only origin a: the cross-origin frame is refused even with subframes allowed.
            #expect(reports["same:open"]?.ok == true)
            #expect(reports["cross:open"]?.code == "forbidden")
            #expect(reports["cross:open"]?.details?.string("reason") == "origin_not_allowed")

            // The main frame forges too: a fake envelope as JSON text, as an array like the relay's own, and
            // as a header line like the relay's own.
            try await harness.run(
                """
                window.dispatchEvent(new CustomEvent('webbridge:post', {detail: ['http://evil.example', 'main',
                  JSON.stringify({v: 1, kind: 'call', id: 'forged-array', task: 'WhoAmI', options: {forged: true}})]}));
                window.dispatchEvent(new CustomEvent('webbridge:post', {detail: JSON.stringify({
                  origin: 'http://evil.example', mainFrame: false,
                  body: JSON.stringify({v: 1, kind: 'call', id: 'forged-main', task: 'WhoAmI', options: {forged: true}})})}));
                window.dispatchEvent(new CustomEvent('webbridge:post', {detail: 'main http://evil.example\\n' +
                  JSON.stringify({v: 1, kind: 'call', id: 'forged-header', task: 'WhoAmI', options: {forged: true}})}));
                e2eCall('who', 'WhoAmI', {from: 'main'});
                """)
            try await harness.waitForSettled(["who"])
            #expect(try await harness.outcome("who").data == ["origin": .string(a.origin), "mainFrame": true])
            await idle(.milliseconds(200))

            let runs = harness.probe.runs(of: "WhoAmI")
            #expect(runs.count == 3, "one real call per frame; no forged call ran")
            #expect(!runs.contains { $0.options["forged"] != nil || $0.options["forgedObject"] != nil })
            #expect(Set(runs.map(\.source)) == [.mainFrame(a.origin), .subframe(a.origin), .subframe(b.origin)])
            #expect(!runs.contains { $0.source.origin?.host == "evil.example" })
            // The forged string envelopes reached the router as bodies without a task, or (the fake
            // header line) as text that is no JSON: invalid, unanswered. Two from the frames, two here.
            let invalid = harness.traffic.matching(.inbound, "call").filter { $0.outcome == "invalid_message" }
            #expect(invalid.count == 4)
            #expect(harness.traffic.all.allSatisfy { $0.id?.hasPrefix("forged-") != true })

            // The page world has no message handler to post to.
            #expect(try await harness.value("typeof window.webkit", as: String.self) == "undefined")
            let direct = try await harness.value(
                """
                (function () { try { window.webkit.messageHandlers.webbridge.postMessage('{"task":"WhoAmI"}'); return 'posted'; }
                  catch (e) { return e.name; } })()
                """, as: String.self)
            #expect(direct == "TypeError")
            let inWorld = try await harness.view.evaluateJavaScriptReturningJSON(
                "typeof window.webkit.messageHandlers.webbridge.postMessage", inWorld: harness.host.world)
            #expect(inWorld == #""function""#, "control: the relay's world does have it")
            await harness.close()
        }
    }
}
#endif
