#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// What native evaluates into the page for one document (a call's progress, a native-to-page
    /// call) while WebKit already replaced that document with the next one. The router checks the
    /// page generation before it evaluates, but its generation changes only when the commit reaches
    /// it, after the web process has committed the next document: a script in flight then runs in
    /// the new document. SECURITY.md: a reply never reaches a document other than the one that
    /// asked; native-to-page calls belong to their document.
    @MainActor
    @Suite("Attacks on deliveries in flight across a navigation")
    struct LateDeliveryAttack {
        /// `Stream`: sends `{"secret": "A-secret-<n>"}` as progress every millisecond until its call ends.
        static func streamTask() -> some BridgeTask {
            ClosureTask(name: "Stream") { (_: JSONValue, context: CallContext) -> String in
                var n = 0
                while !Task.isCancelled {
                    n += 1
                    try await context.progress(["secret": JSONValue.string("A-secret-\(n)")] as JSONValue)
                    try await Task.sleep(for: .milliseconds(1))
                }
                return "end"
            }
        }

        /// Page script: 16 `Stream` calls whose progress messages `window.__progress` counts.
        static let startStreams =
            "for (var i = 0; i < 16; i++) { WebBridge.call('Stream', {}, { onProgress: function () { window.__progress++; } }).catch(function () {}); }"

        /// A hostile next document: its first script replaces `window.WebBridge` (the shim's property
        /// is configurable) by an object whose `_receive` keeps every message native evaluates into it.
        static let thief = """
            <!doctype html><html><head><title>thief</title><script>
            window.__stolen = []; window.__stolenAt = [];
            Object.defineProperty(window, 'WebBridge', { configurable: true, value: { _receive: function (m) {
              window.__stolenAt.push(Math.round(performance.now()));
              window.__stolen.push(typeof m === 'string' ? m : JSON.stringify(m)); } } });
            </script></head><body><p>thief</p></body></html>
            """

        @Test(
            "A document that replaces the page never receives the progress of the replaced document's calls",
            .timeLimit(.minutes(1)))
        func progressReachesNextDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__progress = 0;
                        function go() {
                          \(Self.startStreams)
                        }
                        </script>
                        """))
            b.routes["/b"] = .init(body: Self.thief)
            // Only A's origin may call; the thief's origin is not allowed at all.
            let harness = try E2EHarness(allowing: [a.origin]) { router, _ in try router.register(Self.streamTask()) }
            var stolen: [String] = []
            for round in 1...5 {
                try await harness.load(a.origin + "/a")
                try await harness.run("go();")
                try await harness.waitFor("window.__progress > 200")
                let mark = harness.loadEvents.count
                try await harness.run("location.href = \(E2EPage.jsLiteral(b.origin + "/b"));")
                try await harness.waitForLoad(after: mark, what: "thief \(round)")
                let got = try await harness.value("window.__stolen", as: [String].self)
                let at = try await harness.value("window.__stolenAt", as: [Int].self)
                print(
                    "late delivery: round \(round): the thief got \(got.count) messages (at \(at) ms): \(got.prefix(2))"
                )
                stolen += got
                if !stolen.isEmpty { break }
            }
            #expect(
                stolen.isEmpty,
                "the next document (another origin) received \(stolen.count) progress messages of A's calls: \(stolen.prefix(3))"
            )
            await harness.close()
        }

        @Test(
            "A cross-origin iframe that navigates the top frame to its own page never receives the progress of the host page's calls",
            .timeLimit(.minutes(1)))
        func iframeNavigatesTopAndSteals() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__progress = 0;
                        \(Self.startStreams)
                        </script>
                        <iframe src="\(b.origin)/ad"></iframe>
                        """))
            // A third-party frame: waits a moment, then navigates the top frame to its own page.
            b.routes["/ad"] = .init(
                body:
                    "<!doctype html><title>ad</title><script>setTimeout(function () { top.location.href = '\(b.origin)/b'; }, 400);</script>"
            )
            b.routes["/b"] = .init(body: Self.thief)
            let harness = try E2EHarness(allowing: [a.origin]) { router, _ in try router.register(Self.streamTask()) }
            try harness.view.load(uri: a.origin + "/a")
            try await harness.waitFor("document.title === 'thief' && document.readyState === 'complete'")
            let got = try await harness.value("window.__stolen", as: [String].self)
            let at = try await harness.value("window.__stolenAt", as: [Int].self)
            print(
                "late delivery: the frame's top-level page got \(got.count) messages (at \(at) ms after its navigation started): \(got.prefix(2))"
            )
            #expect(
                got.isEmpty,
                "the third-party frame's page received \(got.count) progress messages of the host page's calls: \(got.prefix(3))"
            )
            await harness.close()
        }

        /// The thief, answering every native-to-page call it gets through its own relay.
        static let answeringThief = thief.replacingOccurrences(
            of: "window.__stolen.push(typeof m === 'string' ? m : JSON.stringify(m));",
            with:
                "window.__stolen.push(typeof m === 'string' ? m : JSON.stringify(m)); var o = typeof m === 'string' ? JSON.parse(m) : m; if (o.kind === 'call') { window.dispatchEvent(new CustomEvent('webbridge:post', { detail: JSON.stringify({v: 1, kind: 'reply', id: o.id, ok: true, data: 'answered by the thief'}) })); }"
        )

        @Test(
            "A document that replaces the page never receives a native-to-page call made to the document it replaced",
            .timeLimit(.minutes(1)))
        func nativeCallReachesNextDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body:
                        "<script>window.__docA = true; WebBridge.handle('Show', function (o) { return 'seen'; });</script>"
                ))
            b.routes["/b"] = .init(body: Self.answeringThief)
            let harness = try E2EHarness(allowing: [a.origin])
            let router = harness.router
            let answers = Locked<[String]>([])
            var stolen: [String] = []
            for round in 1...5 {
                try await harness.load(a.origin + "/a")
                let generationA = router.pageGeneration
                // The app keeps showing A a value meant for A only, as long as A is its document.
                let caller = Task.detached { () -> Int in
                    var n = 0
                    while router.pageGeneration == generationA && !Task.isCancelled {
                        n += 1
                        if let answer = try? await router.callPage(
                            "Show", options: ["secret": JSONValue.string("for-A-\(n)")] as JSONValue, as: String.self,
                            timeout: .seconds(5)), answer != "seen"
                        {
                            answers.update { $0.append(answer) }
                        }
                    }
                    return n
                }
                let callers = (0..<7).map { _ in
                    Task.detached { () -> Void in
                        while router.pageGeneration == generationA && !Task.isCancelled {
                            if let answer = try? await router.callPage(
                                "Show", options: ["secret": JSONValue.string("for-A")] as JSONValue, as: String.self,
                                timeout: .seconds(5)), answer != "seen"
                            {
                                answers.update { $0.append(answer) }
                            }
                        }
                    }
                }
                await idle(.milliseconds(100))
                let mark = harness.loadEvents.count
                try await harness.run("location.href = \(E2EPage.jsLiteral(b.origin + "/b"));")
                try await harness.waitForLoad(after: mark, what: "thief \(round)")
                let calls = await caller.value
                for c in callers { _ = await c.value }
                let got = try await harness.value("window.__stolen", as: [String].self)
                print(
                    "late delivery: round \(round): \(calls) native calls to A; the thief got \(got.count): \(got.prefix(2))"
                )
                stolen += got
                if !stolen.isEmpty { break }
            }
            #expect(answers.value.isEmpty, "native took the thief's answers: \(answers.value)")
            #expect(
                stolen.isEmpty,
                "the next document (another origin) received \(stolen.count) native-to-page calls made to A: \(stolen.prefix(3))"
            )
            await harness.close()
        }
    }
}
#endif
