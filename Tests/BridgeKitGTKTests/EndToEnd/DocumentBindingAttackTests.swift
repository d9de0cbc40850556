#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on the document binding (e015d61): which documents native binds its scripts to.
    /// A page-world spy tells a bound delivery (a `webbridge:message` event from the notice's
    /// world) from an unbound one (`WebBridge._receive` evaluated in whatever document is there).
    @MainActor
    @Suite("Attacks on the document binding")
    struct DocumentBindingAttack {
        /// Page-world spy, (re)installable: `__bound` collects the names of events that arrived
        /// as `webbridge:message` (bound); `__got` the names the page's `WebBridge.on` saw.
        static let spy = """
            window.__bound = window.__bound || []; window.__got = window.__got || [];
            window.__spy = window.__spy || function (e) {
              try { var o = JSON.parse(e.detail); if (o.kind === 'event') { window.__bound.push(o.name); } } catch (x) {}
            };
            window.addEventListener('webbridge:message', window.__spy);
            window.__persisted = null;
            window.__onShow = window.__onShow || function (e) { window.__persisted = e.persisted; };
            window.addEventListener('pageshow', window.__onShow);
            """

        static func page(_ extra: String = "") -> String {
            E2EPage.html(
                title: "a",
                body: """
                    <script>
                    window.__docA = true;
                    \(spy)
                    WebBridge.on('probe', function (d) { window.__got.push(d); });
                    \(extra)
                    </script>
                    """)
        }

        /// Emits `probe` with `name` and waits until the page's listener saw it; returns whether
        /// it arrived bound (as a `webbridge:message` event).
        static func probe(_ harness: E2EHarness, _ name: String) async throws -> (got: Bool, bound: Bool) {
            try await harness.router.emit("probe", data: name)
            let got = await harness.becomesTrue(
                "window.__got.indexOf(\(E2EPage.jsLiteral(name))) >= 0", timeout: .seconds(3))
            let bound = try await harness.isTrue("window.__bound.indexOf('probe') >= 0 && window.__bound.length > 0")
            try await harness.run("window.__bound = []; window.__got = [];")
            return (got, bound)
        }

        @Test("A document restored from the back-forward cache gets bound deliveries", .timeLimit(.minutes(1)))
        func restoredDocumentIsBound() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.page())
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let first = try await Self.probe(harness, "load")
            try await harness.load(server.origin + "/b")
            try await harness.run("history.back();")
            try await harness.waitFor("window.__docA === true && window.__persisted === true")
            let restored = try await Self.probe(harness, "restore")
            print("binding: after load \(first); after restore \(restored)")
            #expect(first.got && first.bound, "a loaded document's deliveries are bound: \(first)")
            #expect(restored.got && restored.bound, "a restored document's deliveries are bound: \(restored)")
            await harness.close()
        }

        /// `document.open()` variants, then a back-forward restore.
        static let openVariants: [(String, String)] = [
            ("write", "document.open(); document.write('<p>w</p>'); document.close();"),
            ("open-close", "document.open(); document.close();"),
            ("open-only", "document.open();"),
            (
                "open-dom",
                "document.open(); document.appendChild(document.createElement('html')); document.documentElement.appendChild(document.createElement('body'));"
            ),
        ]

        @Test(
            "A document that called document.open() keeps bound deliveries, also after a back-forward restore",
            .timeLimit(.minutes(1)), arguments: 0..<4)
        func documentOpenThenRestore(_ variant: Int) async throws {
            let (name, script) = Self.openVariants[variant]
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.page())
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.run("\(script) \(Self.spy)")
            await idle(.milliseconds(200))
            try await harness.run("\(Self.spy) window.__docA = true;")
            let opened = try await Self.probe(harness, "opened")
            try await harness.load(server.origin + "/b")
            try await harness.run("history.back();")
            let restoredAtAll = await harness.becomesTrue(
                "window.__docA === true && window.__persisted === true", timeout: .seconds(5))
            var restored: (got: Bool, bound: Bool) = (false, false)
            if restoredAtAll { restored = try await Self.probe(harness, "restored") }
            print(
                "binding: document.open \(name): after open \(opened); restored from cache \(restoredAtAll): \(restored)"
            )
            #expect(opened.got && opened.bound, "\(name): after document.open(): \(opened)")
            if restoredAtAll {
                #expect(restored.got && restored.bound, "\(name): after the restore: \(restored)")
            }
            await harness.close()
        }

        @Test(
            "A restored document that once called document.open() never has its progress read by the document that replaces it",
            .timeLimit(.minutes(1)))
        func documentOpenRestoreProgressStolen() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__persisted = null;
                        function go() {
                          window.__progress = 0;
                          \(LateDeliveryAttack.startStreams)
                        }
                        // The page rebuilds itself with DOM calls after document.open() (no document.write).
                        function rebuild() {
                          document.open(); document.appendChild(document.createElement('html'));
                          document.documentElement.appendChild(document.createElement('body'));
                          document.body.textContent = 'rebuilt'; window.__docA = true;
                          addEventListener('pageshow', function (e) { window.__persisted = e.persisted; });
                        }
                        </script>
                        """))
            a.routes["/other"] = .init(body: E2EPage.html(title: "other"))
            b.routes["/b"] = .init(body: LateDeliveryAttack.thief)
            let harness = try E2EHarness(allowing: [a.origin]) { router, _ in
                try router.register(LateDeliveryAttack.streamTask())
            }
            var stolen: [String] = []
            for round in 1...5 {
                try await harness.load(a.origin + "/a")
                try await harness.run("rebuild();")
                try await harness.waitFor("window.__docA === true")
                try harness.view.load(uri: a.origin + "/other")
                try await harness.waitFor("document.title === 'other' && document.readyState === 'complete'")
                try await harness.run("history.back();")
                try await harness.waitFor("window.__docA === true && window.__persisted === true")
                try await harness.run("go();")
                try await harness.waitFor("window.__progress > 200")
                let mark = harness.loadEvents.count
                try await harness.run("location.href = \(E2EPage.jsLiteral(b.origin + "/b"));")
                try await harness.waitForLoad(after: mark, what: "thief \(round)")
                let got = try await harness.value("window.__stolen", as: [String].self)
                print("binding: document.open + restore, round \(round): the thief got \(got.count): \(got.prefix(2))")
                stolen += got
                if !stolen.isEmpty { break }
            }
            #expect(
                stolen.isEmpty,
                "the next document (another origin) received \(stolen.count) progress messages of the restored document's calls: \(stolen.prefix(3))"
            )
            await harness.close()
        }

        /// Same-document navigations and history tricks, each followed by a probe.
        static let sameDocument: [(String, String)] = [
            ("hash", "location.hash = '#x';"),
            ("pushState", "history.pushState({n: 1}, '', '/a?p=1');"),
            ("pushState+back", "history.pushState({n: 1}, '', '/a?p=2'); history.back();"),
            ("replaceState", "history.replaceState({n: 2}, '', '/a?r=1');"),
            ("replace-hash", "location.replace('#y');"),
            ("javascript-undefined", "location.href = 'javascript:void 0';"),
        ]

        @Test(
            "Same-document navigations keep the document's deliveries bound",
            .timeLimit(.minutes(1)), arguments: 0..<6)
        func sameDocumentNavigations(_ variant: Int) async throws {
            let (name, script) = Self.sameDocument[variant]
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.page())
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            let generation = harness.router.pageGeneration
            try await harness.run(script)
            await idle(.milliseconds(300))
            let after = try await Self.probe(harness, name)
            print("binding: \(name): \(after); generation \(generation) -> \(harness.router.pageGeneration)")
            #expect(after.got && after.bound, "\(name): \(after)")
            #expect(harness.router.pageGeneration == generation, "\(name) started a page generation")
            await harness.close()
        }

        @Test(
            "A page replacing dispatchEvent, CustomEvent, JSON and addEventListener after the shim, with throwing webbridge:message listeners, still gets bound events, progress and native calls",
            .timeLimit(.minutes(1)))
        func hostileGlobalsAfterShim() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: Self.page(
                    """
                    window.__calls = 0; window.__prog = 0;
                    WebBridge.handle('Ping', function () { window.__calls++; return 'pong'; });
                    addEventListener('webbridge:message', function () { throw new Error('listener throws'); }, true);
                    addEventListener('webbridge:message', function () { throw new Error('listener throws'); });
                    EventTarget.prototype.dispatchEvent = function () { return true; };
                    window.dispatchEvent = function () { return true; };
                    window.CustomEvent = function () { throw new Error('no'); };
                    JSON.parse = function () { throw new Error('no'); };
                    JSON.stringify = function () { return '"x"'; };
                    EventTarget.prototype.addEventListener = function () {};
                    window.addEventListener = function () {};
                    """))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.router.emit("probe", data: "hostile")
            let gotEvent = await harness.becomesTrue("window.__got.indexOf('hostile') >= 0", timeout: .seconds(3))
            let answer = try await harness.router.callPage("Ping", as: String.self, timeout: .seconds(3))
            try await harness.run(
                "e2eCall('p', 'Progress', {count: 3}, {onProgress: function () { window.__prog++; }});")
            try await harness.waitForSettled(["p"])
            let progress = try await harness.value("window.__prog", as: Int.self)
            print("binding: hostile globals: event \(gotEvent), native call \(answer), progress \(progress)")
            #expect(gotEvent)
            #expect(answer == "pong")
            #expect(progress == 2)
            await harness.close()
        }

        @Test(
            "Neither the page nor a same-origin frame reaches __webbridgeDeliver, the notice handler or the id; a notice body posted through the bridge changes nothing",
            .timeLimit(.minutes(1)))
        func pageCannotReachNoticeWorld() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.page() + "<iframe id=f src='/f'></iframe>")
            server.routes["/f"] = .init(body: "<!doctype html><title>f</title><p>f</p>")
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.waitFor("document.getElementById('f').contentDocument.readyState === 'complete'")
            let generation = harness.router.pageGeneration
            let seen = try await harness.value(
                """
                (function () {
                  var out = [];
                  var hex = /[0-9a-f]{32}/;
                  out.push(typeof window.__webbridgeDeliver, typeof top.__webbridgeDeliver);
                  var f = document.getElementById('f').contentWindow;
                  out.push(typeof f.__webbridgeDeliver, typeof f.parent.__webbridgeDeliver);
                  var mh = window.webkit && window.webkit.messageHandlers;
                  out.push(typeof (mh && mh.webbridgeDocument));
                  var fmh = f.webkit && f.webkit.messageHandlers;
                  out.push(typeof (fmh && fmh.webbridgeDocument));
                  Object.getOwnPropertyNames(window).forEach(function (k) {
                    if (hex.test(k) || /webbridge/i.test(k) && k !== 'WebBridge') { out.push('name:' + k); }
                    try { var v = window[k]; if (typeof v === 'string' && hex.test(v)) { out.push('value:' + k); } } catch (e) {}
                  });
                  if (hex.test(document.documentElement.outerHTML)) { out.push('html'); }
                  return out;
                })()
                """, as: [String].self)
            // A notice body through the bridge's own channel.
            try await harness.run(
                "window.dispatchEvent(new CustomEvent('webbridge:post', { detail: JSON.stringify({v: 1, kind: 'document', document: '0123456789abcdef0123456789abcdef'}) }));"
            )
            await idle(.milliseconds(300))
            let after = try await Self.probe(harness, "after-forged-notice")
            print(
                "binding: page view of the notice world: \(seen); after a forged notice \(after), generation \(generation) -> \(harness.router.pageGeneration)"
            )
            #expect(seen == ["undefined", "undefined", "undefined", "undefined", "undefined", "undefined"])
            #expect(harness.router.pageGeneration == generation)
            #expect(after.got && after.bound)
            await harness.close()
        }

        @Test(
            "XHTML and CSP-restricted documents get bound deliveries",
            .timeLimit(.minutes(1)), arguments: 0..<3)
        func documentKindsBound(_ variant: Int) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let script = """
                window.__docA = true; window.__bound = []; window.__got = [];
                window.addEventListener('webbridge:message', function (e) {
                  try { var o = JSON.parse(e.detail); if (o.kind === 'event') { window.__bound.push(o.name); } } catch (x) {} });
                WebBridge.on('probe', function (d) { window.__got.push(d); });
                """
            let name: String
            switch variant {
            case 0:
                name = "xhtml"
                server.routes["/a"] = .init(
                    contentType: "application/xhtml+xml",
                    body:
                        "<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><head><title>a</title><script>//<![CDATA[\n\(script)\n//]]></script></head><body><p>x</p></body></html>"
                )
            case 1:
                name = "csp-strict"
                var route = LoopbackServer.Response(
                    body: E2EPage.html(title: "a", body: "<script nonce='n1'>\(script)</script>"))
                route.headers = [
                    ("Content-Security-Policy", "default-src 'none'; script-src 'nonce-n1'; connect-src 'none'")
                ]
                server.routes["/a"] = route
            default:
                name = "csp-sandbox-scripts"
                var route = LoopbackServer.Response(body: E2EPage.html(title: "a", body: "<script>\(script)</script>"))
                route.headers = [("Content-Security-Policy", "sandbox allow-scripts")]
                server.routes["/a"] = route
            }
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            try await harness.waitFor("window.__docA === true")
            let after = try await Self.probe(harness, name)
            print("binding: kind \(name): \(after)")
            #expect(after.got && after.bound, "\(name): \(after)")
            await harness.close()
        }

        @Test(
            "A thief restored from the back-forward cache (history.forward) never receives the progress of the document it replaces",
            .timeLimit(.minutes(1)))
        func restoredThiefGetsNothing() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__persisted = null;
                        addEventListener('pageshow', function (e) { window.__persisted = e.persisted; });
                        function go() {
                          window.__progress = 0;
                          \(LateDeliveryAttack.startStreams)
                        }
                        </script>
                        """))
            b.routes["/b"] = .init(
                body: LateDeliveryAttack.thief.replacingOccurrences(
                    of: "</script></head>",
                    with:
                        "addEventListener('pageshow', function (e) { window.__shown = e.persisted; });</script></head>")
            )
            let harness = try E2EHarness(allowing: [a.origin]) { router, _ in
                try router.register(LateDeliveryAttack.streamTask())
            }
            var stolen: [String] = []
            var restores = 0
            for round in 1...5 {
                try await harness.load(a.origin + "/a")
                try await harness.load(b.origin + "/b")
                try await harness.run("history.back();")
                try await harness.waitFor("window.__docA === true && window.__persisted === true")
                try await harness.run("go();")
                try await harness.waitFor("window.__progress > 200")
                try await harness.run("history.forward();")
                try await harness.waitFor("document.title === 'thief' && window.__shown !== undefined")
                if try await harness.isTrue("window.__shown === true") { restores += 1 }
                await idle(.milliseconds(100))
                let got = try await harness.value("window.__stolen", as: [String].self)
                print("binding: restored thief, round \(round): got \(got.count): \(got.prefix(2))")
                stolen += got
                if !stolen.isEmpty { break }
            }
            print("binding: restored thief: \(restores) restores from the cache")
            #expect(stolen.isEmpty, "the restored thief got \(stolen.count): \(stolen.prefix(3))")
            await harness.close()
        }

        @Test(
            "Events the app emits from the commit on reach the new document without a gap once its listener is there",
            .timeLimit(.minutes(1)))
        func eventsAtLoadWithoutGap() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    head:
                        "<script>window.__n = []; WebBridge.on('tick', function (d) { window.__n.push(d); });</script>",
                    body: "<script>window.__docA = true;</script>"))
            let harness = try E2EHarness(allowing: [server.origin])
            let router = harness.router
            let sent = Locked(0)
            let running = Locked(false)
            let previous = harness.host.page.onLoadEvent
            harness.host.page.onLoadEvent = { event in
                previous?(event)
                guard event == .committed, !running.value else { return }
                running.set(true)
                Task.detached {
                    for n in 1...400 {
                        try? await router.emit("tick", data: n)
                        sent.set(n)
                    }
                    running.set(false)
                }
            }
            try await harness.load(server.origin + "/a")
            _ = await eventually { !running.value }
            await idle(.milliseconds(200))
            let got = try await harness.value("window.__n", as: [Int].self)
            let first = got.first ?? 0
            let expected = first > 0 ? Array(first...sent.value) : []
            print("binding: ticks: sent \(sent.value), got \(got.count) from \(first) to \(got.last ?? 0)")
            #expect(!got.isEmpty)
            #expect(got == expected, "missing \(Set(expected).subtracting(got).sorted().prefix(10))")
            await harness.close()
        }
    }
}
#endif
