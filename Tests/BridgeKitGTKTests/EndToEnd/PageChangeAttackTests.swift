#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Native-to-page calls and page-to-native calls across page changes, attacked in real WebKitGTK
    /// by hostile pages: a document that replaces the page without a commit WebKitGTK reports (a
    /// `javascript:` URL's result; the document notice starts a generation for it), a document the
    /// back-forward cache restores, `about:blank`, a handler that navigates; hostile answers and
    /// bodies; answers native cannot read (`invalid_result`, never a successful `null`).
    @MainActor
    @Suite("Page changes and native-to-page calls under attack")
    struct PageChangeAttack {
        /// Starts `router.callPage(handler)` in its own task; the task's value is "answered:<data>"
        /// or the BridgeError code.
        static func startPageCall(
            _ router: BridgeRouter, _ handler: String, timeout: Duration? = .seconds(15)
        ) -> Task<String, Never> {
            Task { () -> String in
                do {
                    let value = try await router.callPage(handler, as: JSONValue.self, timeout: timeout)
                    return "answered:\(value)"
                } catch let error as BridgeError {
                    return error.code
                } catch {
                    return "\(error)"
                }
            }
        }

        /// Page-world script that posts a forged page-to-native reply for `id` through the
        /// frame's own relay.
        static func forgeReply(_ id: String, data: String) -> String {
            """
            window.dispatchEvent(new CustomEvent('webbridge:post', { detail: JSON.stringify({v: 1, kind: 'reply', id: \(E2EPage.jsLiteral(id)), ok: true, data: \(E2EPage.jsLiteral(data))}) }));
            """
        }

        /// A javascript: URL whose result (a string) becomes the main frame's new document.
        static let javascriptURLNavigation =
            #"location.href = "javascript:'<!doctype html><html><head><title>js</title></head><body><p>new</p></body></html>'";"#

        /// The id of the first native-to-page call the page's spy recorded.
        static let firstNativeCallID =
            "window.__rx.filter(function (m) { return m.kind === 'call'; }).map(function (m) { return m.id; })[0]"

        static let holdPage = E2EPage.html(
            title: "a",
            body: """
                <script>
                window.__docA = true; window.__held = false;
                WebBridge.handle('Hold', function () { window.__held = true; return new Promise(function () {}); });
                </script>
                """)

        // MARK: Page changes

        @Test(
            "A document restored from the back-forward cache cannot answer a native call made to the document it replaced",
            .timeLimit(.minutes(1)))
        func bfcacheRestoreAnswersOtherDocumentsCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__persisted = null;
                        window.addEventListener('pageshow', function (e) { window.__persisted = e.persisted; });
                        </script>
                        """))
            server.routes["/b"] = .init(
                body: E2EPage.html(
                    title: "b",
                    body: """
                        <script>
                        window.__docB = true; window.__held = false;
                        WebBridge.handle('Hold', function () { window.__held = true; return new Promise(function () {}); });
                        </script>
                        """))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.load(server.origin + "/b")
            let generationB = harness.router.pageGeneration

            let call = Self.startPageCall(harness.router, "Hold")
            try await harness.waitFor("window.__held === true")
            let id = try await harness.value(Self.firstNativeCallID, as: String.self)

            try await harness.run("history.back();")
            try await harness.waitFor("window.__docA === true && window.__persisted !== null")
            try #require(try await harness.isTrue("window.__persisted === true"), "A came back from the bfcache")

            // Document A (not the one asked) answers B's call with a guessed id.
            try await harness.run(Self.forgeReply(id, data: "forged by A"))
            let outcome = await call.value
            #expect(outcome == "navigated", "B's call got \(outcome) from document A")
            #expect(harness.router.pageGeneration > generationB, "the restore started a new page generation")
            await harness.close()
        }

        @Test(
            "A document that replaces the page through a javascript: URL cannot answer a native call made to the one it replaced",
            .timeLimit(.minutes(1)))
        func javascriptURLDocumentAnswersOldCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.holdPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let generationA = harness.router.pageGeneration
            let commitsA = harness.loadEvents.filter { $0 == .committed }.count

            let call = Self.startPageCall(harness.router, "Hold")
            try await harness.waitFor("window.__held === true")
            let id = try await harness.value(Self.firstNativeCallID, as: String.self)

            try await harness.run(Self.javascriptURLNavigation)
            try await harness.waitFor("document.title === 'js'")
            let sameWindow = try await harness.isTrue("window.__docA === true")
            let hasBridge = try await harness.isTrue(
                "typeof window.WebBridge === 'object' && window.WebBridge !== null")
            print(
                "page-change attack: javascript: URL document: old window kept=\(sameWindow) bridge=\(hasBridge) commits since A=\(harness.loadEvents.filter { $0 == .committed }.count - commitsA) generation \(generationA) -> \(harness.router.pageGeneration)"
            )
            try #require(!sameWindow, "a new document (and window) replaced document A")

            try await harness.run(Self.forgeReply(id, data: "forged by the javascript: document"))
            let outcome = await call.value
            #expect(outcome == "navigated", "A's call got \(outcome) from the document that replaced it")
            await harness.close()
        }

        @Test(
            "A document replaced through a javascript: URL loses its page-to-native calls: native ends them as navigated",
            .timeLimit(.minutes(1)))
        func javascriptURLKeepsOldPageCalls() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<script>window.__docA = true;</script>"))
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await harness.load(server.origin + "/a")
            try await harness.run("e2eCall('held', 'Gate', {});")
            #expect(await eventually { harness.probeGateCalls(harness) == 1 })
            let id = try #require(harness.traffic.acceptedCallIDs(task: "Gate").first)

            try await harness.run(Self.javascriptURLNavigation)
            try await harness.waitFor("document.title === 'js'")
            try #require(try await harness.isTrue("window.__docA === undefined"), "a new document replaced document A")

            open.set(true)
            #expect(await eventually { !harness.traffic.matching(.outbound, "reply", id: id).isEmpty })
            let replies = harness.traffic.matching(.outbound, "reply", id: id)
            print(
                "page-change attack: old document's call after javascript: replacement: \(replies.map { "\($0.outcome ?? "nil") \(String(describing: $0.reason))" })"
            )
            #expect(
                replies.map(\.outcome) == ["navigated"],
                "the replaced document's call was answered as if its document were still there")
            await harness.close()
        }

        @Test(
            "about:blank loaded into the main frame by the page cannot answer the native call made to the page it replaced",
            .timeLimit(.minutes(1)))
        func aboutBlankAnswersOldCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.holdPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let call = Self.startPageCall(harness.router, "Hold")
            try await harness.waitFor("window.__held === true")
            let id = try await harness.value(Self.firstNativeCallID, as: String.self)
            try await harness.run("location.href = 'about:blank';")
            try await harness.waitFor("location.href === 'about:blank' && window.__docA === undefined")
            try await harness.run(Self.forgeReply(id, data: "forged by about:blank"))
            let outcome = await call.value
            #expect(outcome == "navigated", "A's call got \(outcome)")
            await harness.close()
        }

        @Test(
            "A page handler that navigates away: the native call settles navigated",
            .timeLimit(.minutes(1)))
        func handlerNavigates() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        WebBridge.handle('Go', function () { location.href = '/b'; return new Promise(function () {}); });
                        </script>
                        """))
            server.routes["/b"] = .init(
                body: E2EPage.html(
                    title: "b",
                    body: "<script>WebBridge.handle('Go', function () { return 'answered by b'; });</script>"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let outcome = await Self.startPageCall(harness.router, "Go").value
            #expect(outcome == "navigated")
            await harness.close()
        }

        // MARK: Hostile answers and races

        @Test(
            "Hostile page answers to native calls fail them at once with a stable code", .timeLimit(.minutes(1)))
        func hostilePageAnswers() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: #"""
                        <script>
                        WebBridge.handle('Big', function () { return 'x'.repeat(17 * 1024 * 1024); });
                        WebBridge.handle('Wide', function () { return '\u4e2d'.repeat(6 * 1024 * 1024); });
                        WebBridge.handle('Cycle', function () { var o = {}; o.o = o; return o; });
                        WebBridge.handle('Deep', function () { var o = []; for (var i = 0; i < 200; i++) { o = [o]; } return o; });
                        WebBridge.handle('Getter', function () { return { get a() { throw new Error('boom'); } }; });
                        WebBridge.handle('ToJSON', function () { return { toJSON: function () { return undefined; } }; });
                        WebBridge.handle('Lone', function () { return '\ud800'; });
                        </script>
                        """#))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            var outcomes: [String: String] = [:]
            for name in ["Big", "Wide", "Cycle", "Deep", "Getter", "ToJSON", "Lone"] {
                outcomes[name] = await Self.startPageCall(harness.router, name, timeout: .seconds(8)).value
            }
            print("page-change attack: hostile page answers: \(outcomes)")
            #expect(outcomes["Big"] == "payload_too_large")
            #expect(outcomes["Wide"] == "payload_too_large")
            #expect(outcomes["Cycle"] == "invalid_result")
            #expect(outcomes["Deep"] == "nesting_too_deep")
            #expect(outcomes["Getter"] == "invalid_result")
            #expect(outcomes.values.allSatisfy { $0 != "timeout" }, "no answer is lost")
            await harness.close()
        }

        @Test(
            "Calls whose timeout or AbortSignal races native's reply settle exactly once", .timeLimit(.minutes(1)))
        func timeoutAbortRace() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: E2EPage.html(title: "a"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.run(
                """
                window.__keys = [];
                for (var i = 0; i < 300; i++) {
                  var k = 'c' + i; window.__keys.push(k);
                  if (i % 3 === 0) { e2eCall(k, 'Echo', i, { timeout: (i % 7) * 0.5 + 0.1 }); }
                  else if (i % 3 === 1) { var ac = new AbortController(); e2eCall(k, 'Echo', i, { signal: ac.signal }); (function (a, d) { setTimeout(function () { a.abort(); }, d); })(ac, i % 5); }
                  else { var ac2 = new AbortController(); e2eCall(k, 'Progress', i, { signal: ac2.signal, timeout: 2, onProgress: function () {} }); Promise.resolve().then((function (a) { return function () { a.abort(); }; })(ac2)); }
                }
                """)
            try await harness.waitFor("window.__keys.every(function (k) { return window.__settled[k] != null; })")
            await idle(.milliseconds(500))
            #expect(
                try await harness.isTrue("window.__keys.every(function (k) { return window.__settleCount[k] === 1; })"))
            #expect(try await harness.isTrue("WebBridge.pendingCount() === 0"))
            let codes = try await harness.value(
                "window.__keys.map(function (k) { var s = window.__settled[k]; return s.ok ? 'ok' : s.code; })",
                as: [String].self)
            #expect(codes.allSatisfy { ["ok", "timeout", "cancelled"].contains($0) }, "\(Set(codes))")
            await harness.close()
        }

        @Test("Hostile bodies through the relay never crash the app, and the page still calls", .timeLimit(.minutes(1)))
        func hostileBodies() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: E2EPage.html(title: "a"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.run(
                #"""
                var bodies = [
                  '{"v":1,"kind":"call","id":"\\ud800","task":"Echo","options":1}',
                  '{"v":1,"kind":"call","id":"a","task":"\\udfff","options":"\\ud800\\udc00\\udc00"}',
                  '{"v":1,"kind":"reply","id":"n-1","ok":true,"data":"\\ud800"}',
                  '{"v":1,"kind":"cancel","id":"\\ud800"}',
                  '{"v":1,"kind":"call","id":"' + 'i'.repeat(70000) + '","task":"Echo"}',
                  '{"v":1,"kind":"call","id":"b","task":"Echo","options":' + '['.repeat(100000) + ']'.repeat(100000) + '}',
                  '{"v":1,"kind":"call","id":"c","task":"Echo","options":' + '['.repeat(100000) + '}',
                  '{"v":1,"kind":"call","id":"d","task":"Echo","options":1e999999}',
                  '{"v":1,"kind":"call","id":"e","task":"Echo","options":-0}',
                  '{"v":1,"kind":"call","id":"f","task":"Echo","options":123456789012345678901234567890}',
                  '{"v":1,"kind":"call","id":' + '9'.repeat(400) + ',"task":"Echo"}',
                  '{"v":1,"kind":"call","id":"g","task":"Echo","options":"' + '\\u0000'.repeat(10) + '"}',
                  '\ufeff{"v":1,"kind":"call","id":"h","task":"Echo"}',
                  '{"v":1,"kind":"call","id":"i","task":"Echo","options":"\ud800"}',
                  '"{\\"v\\":1,\\"kind\\":\\"call\\",\\"id\\":\\"j\\",\\"task\\":\\"Echo\\",\\"options\\":\\"\\\\ud800\\"}"',
                  '{"v":1,"kind":"call","id":"k","task":"Echo","options":{"__proto__":{"x":1}}}',
                  '{"v":1,"kind":"call","id":"l","task":"Echo","options":"' + '\\u2028<\/script>'.repeat(1000) + '"}',
                  '{"v":1,"kind":"call","callbackId":{"a":1},"task":"Echo"}',
                  '{"v":1.0,"kind":"call","id":"n","task":"Echo"}',
                  '{"v":1e0,"kind":"call","id":"o","task":"Echo"}',
                  '{"v":1,"kind":"call","id":"p","task":"Echo","options":"' + '\\ud83d\\ude00'.repeat(40000) + '"}'
                ];
                bodies.forEach(function (b) { window.dispatchEvent(new CustomEvent('webbridge:post', { detail: b })); });
                e2eCall('after', 'Echo', 'still here');
                """#)
            try await harness.waitForSettled(["after"])
            #expect(try await harness.outcome("after").data == "still here")
            await idle(.milliseconds(300))
            let outcomes = harness.traffic.all.filter { $0.direction == .inbound }.map {
                "\($0.kind) \($0.id?.prefix(12) ?? "-") \($0.outcome ?? "-")"
            }
            print("page-change attack: hostile bodies: \(outcomes)")
            await harness.close()
        }

        @Test(
            "A page answer whose data native cannot decode (half an emoji, 1e999) fails the native call; it does not succeed with null",
            .timeLimit(.minutes(1)))
        func undecodableAnswerBecomesNull() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: #"""
                        <script>
                        // A preview cut at 5 UTF-16 units splits the emoji: a lone high surrogate, which
                        // JSON.stringify writes as the escape \ud83d (well-formed JSON).
                        WebBridge.handle('Preview', function () { return { title: 'Hello \ud83d\ude00 world'.slice(0, 7), approved: true }; });
                        WebBridge.handle('Huge', function () { window.__hugeAsked = true; return new Promise(function () {}); });
                        </script>
                        """#))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let preview = await Self.startPageCall(harness.router, "Preview", timeout: .seconds(8)).value
            print("page-change attack: Preview answered \(preview)")
            #expect(preview == "invalid_result", "the page answered {title, approved: true}; native got \(preview)")

            let huge = Self.startPageCall(harness.router, "Huge", timeout: .seconds(8))
            try await harness.waitFor("window.__hugeAsked === true")
            let hugeID = try await harness.value(
                "window.__rx.filter(function (m) { return m.kind === 'call'; }).map(function (m) { return m.id; }).pop()",
                as: String.self)
            try await harness.run(
                "window.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{\"v\":1,\"kind\":\"reply\",\"id\":\"\(hugeID)\",\"ok\":true,\"data\":{\"amount\":1e999}}' }));"
            )
            let hugeOutcome = await huge.value
            print("page-change attack: 1e999 answered \(hugeOutcome)")
            #expect(hugeOutcome == "invalid_result", "the page answered {amount: 1e999}; native got \(hugeOutcome)")
            await harness.close()
        }

        @Test(
            "A native call ended by navigation: the restored (bfcache) document's handler sees its signal aborted and sends no reply",
            .timeLimit(.minutes(1)))
        func bfcacheRestoredHandlerNotAborted() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__persisted = null; window.__signal = null;
                        window.addEventListener('pageshow', function (e) { window.__persisted = e.persisted; });
                        WebBridge.handle('Wait', function (o, ctx) { window.__signal = ctx.signal;
                          return new Promise(function (r) { window.__release = function () { r('late answer'); }; }); });
                        </script>
                        """))
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let call = Self.startPageCall(harness.router, "Wait")
            try await harness.waitFor("typeof window.__release === 'function'")
            try await harness.load(server.origin + "/b")
            #expect(await call.value == "navigated")
            try await harness.run("history.back();")
            try await harness.waitFor("window.__docA === true && window.__persisted !== null")
            try #require(try await harness.isTrue("window.__persisted === true"), "A came back from the bfcache")
            await idle(.milliseconds(100))
            let aborted = try await harness.isTrue("window.__signal.aborted === true")
            let before = harness.traffic.matching(.inbound, "reply").count
            try await harness.run("window.__release();")
            await idle(.milliseconds(300))
            let after = harness.traffic.matching(.inbound, "reply").map { "\($0.id ?? "-") \($0.outcome ?? "-")" }
            print(
                "page-change attack: restored handler aborted=\(aborted), page replies after release: \(after.dropFirst(before))"
            )
            #expect(aborted, "the restored document's handler was never told native gave up")
            #expect(after.count == before, "the page sent a reply for a call native ended")
            await harness.close()
        }
    }
}
#endif
