#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Issue 20, item 1: a document's origin is its security origin (`self.origin`), not its URL's.
    /// An opaque origin is no origin: refused with `forbidden` (`no_origin`) even by a policy that
    /// allows the URL's origin or any origin (`.anyOrigin`); a document that inherits its origin
    /// (`srcdoc`, `about:blank` written by its parent, `blob:`) is treated as that origin.
    @MainActor
    @Suite("Opaque and inherited origins")
    struct OpaqueOrigins {
        /// A child document's script: calls `Open` (origin a, subframes allowed) and `WhoAmI`
        /// (any origin, subframes allowed) and reports each outcome, and the origins it sees, to
        /// the parent with `postMessage` (`{frame, step, ok, data | code, details}`).
        static func childScript(_ name: String) -> String {
            """
            (function () {
              var name = '\(name)';
              function send(step, m) { m.frame = name; m.step = step; parent.postMessage(m, '*'); }
              send('origins', {ok: true, data: {self: String(self.origin), location: String(location.origin)}});
              if (typeof WebBridge !== 'object' || !WebBridge) { send('open', {ok: false, code: 'no_bridge'}); send('whoami', {ok: false, code: 'no_bridge'}); return; }
              function report(step, p) {
                p.then(function (v) { send(step, {ok: true, data: v}); },
                  function (e) { send(step, {ok: false, code: e.code, details: e.details}); });
              }
              report('open', WebBridge.call('Open', {from: name}));
              report('whoami', WebBridge.call('WhoAmI', {from: name}));
            })();
            """
        }

        /// One report from a child document.
        struct FrameReport: Decodable {
            var ok: Bool
            var data: JSONValue?
            var code: String?
            var details: JSONValue?
        }

        /// A harness allowing the main frame of `origin`, with `Open` allowing `origin` in subframes too.
        static func harness(_ origin: String) throws -> E2EHarness {
            try E2EHarness(allowing: [origin]) { router, probe in
                try router.register(
                    E2ETasks.record(
                        probe, name: "Open", policy: .origins([OriginPattern(origin)], allowsSubframes: true)))
            }
        }

        @Test(
            "a main frame served with Content-Security-Policy: sandbox allow-scripts has no origin: forbidden (no_origin) under an allowlist naming its URL's origin and under anyOrigin",
            .timeLimit(.minutes(1)))
        func cspSandboxedMainFrame() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/"] = .init(
                headers: [("Content-Security-Policy", "sandbox allow-scripts")], body: E2EPage.html(title: "sandboxed"))
            a.routes["/plain"] = .init(body: E2EPage.html(title: "plain"))
            let harness = try Self.harness(a.origin)

            // Control: the same page without the header is origin a, in both worlds.
            try await harness.load(a.origin + "/plain")
            #expect(try await harness.value("self.origin", as: String.self) == a.origin)
            #expect(
                try await harness.view.evaluateJavaScriptReturningJSON("self.origin", inWorld: harness.host.world)
                    == "\"\(a.origin)\"")
            try await harness.run("e2eCall('plain', 'Record', {})")
            try await harness.waitForSettled(["plain"])
            #expect(try await harness.outcome("plain").ok)

            try await harness.load(a.origin + "/")
            // The document's origin is opaque in the page world and in the relay's isolated world
            // (worlds share the document); only its URL says a.
            #expect(try await harness.value("self.origin", as: String.self) == "null")
            #expect(try await harness.value("location.origin", as: String.self) == a.origin)
            #expect(
                try await harness.view.evaluateJavaScriptReturningJSON("self.origin", inWorld: harness.host.world)
                    == #""null""#)
            try await harness.run("e2eCall('record', 'Record', {}); e2eCall('who', 'WhoAmI', {})")
            try await harness.waitForSettled(["record", "who"])
            for key in ["record", "who"] {
                let outcome = try await harness.outcome(key)
                #expect(!outcome.ok, "\(key)")
                #expect(outcome.code == "forbidden", "\(key)")
                #expect(outcome.details?.string("reason") == "no_origin", "\(key)")
            }
            #expect(harness.probe.runs(of: "Record").count == 1, "only the control call ran")
            #expect(harness.probe.runs(of: "WhoAmI").isEmpty)
            await harness.close()
        }

        @Test(
            "iframes: sandbox without allow-same-origin and data: are opaque (forbidden, no_origin); sandbox with allow-same-origin, srcdoc, about:blank scripted or written by the parent and blob: are the parent's origin",
            .timeLimit(.minutes(1)))
        func frames() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let child = { (name: String) in
                E2EPage.html(title: name, head: "<script>\(Self.childScript(name))</script>")
            }
            a.routes["/child"] = .init(body: child("sandboxed"))
            a.routes["/child-same"] = .init(body: child("sandboxedSame"))
            // The parent builds the other documents itself. Each is HTML whose script reports to the parent.
            let documents: [String: String] = [
                "srcdoc": "<script>\(Self.childScript("srcdoc"))</script>",
                "data": "<script>\(Self.childScript("data"))</script>",
                "blank": Self.childScript("blank"),
                "written": "<script>\(Self.childScript("written"))</script>",
                "blob": "<script>\(Self.childScript("blob"))</script>",
            ]
            let documentsJS = E2EPage.jsExpression(.object(documents.mapValues { .string($0) }))
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        window.__frames = {};
                        window.addEventListener('message', function (e) { window.__frames[e.data.frame + ':' + e.data.step] = e.data; });
                        </script>
                        """,
                    body: """
                        <iframe sandbox="allow-scripts" src="/child"></iframe>
                        <iframe sandbox="allow-scripts allow-same-origin" src="/child-same"></iframe>
                        <script>
                        (function () {
                          var docs = \(documentsJS);
                          function frame() { var f = document.createElement('iframe'); document.body.appendChild(f); return f; }
                          frame().srcdoc = docs.srcdoc;
                          frame().src = 'data:text/html;charset=utf-8,' + encodeURIComponent(docs.data);
                          // about:blank, scripted by the parent through the DOM: the script runs in the child.
                          var blank = frame().contentDocument;
                          var script = blank.createElement('script');
                          script.textContent = docs.blank;
                          blank.body.appendChild(script);
                          // about:blank rewritten by the parent with document.write.
                          var written = frame().contentDocument;
                          written.open(); written.write(docs.written); written.close();
                          frame().src = URL.createObjectURL(new Blob([docs.blob], {type: 'text/html'}));
                          window.__opened = String(window.open('about:blank'));
                        })();
                        </script>
                        """))
            let harness = try Self.harness(a.origin)
            try await harness.load(a.origin + "/")
            let names = ["sandboxed", "sandboxedSame", "srcdoc", "data", "blank", "written", "blob"]
            // The about:blank frame rewritten with document.write: document.open() erases every
            // event listener of the frame's window (HTML, "document open steps"), the relay's in its
            // isolated world included; the shim and the relay add theirs back, so its calls work.
            let keys = names.flatMap { name in ["open", "whoami"].map { "'\(name):\($0)'" } }
            do {
                try await harness.waitFor(
                    "[\(keys.joined(separator: ","))].every(function (k) { return k in window.__frames; })",
                    timeout: .seconds(15))
            } catch {
                Issue.record("reports: \(try await harness.json("window.__frames"))")
                throw error
            }
            let reports = try await harness.value("window.__frames", as: [String: FrameReport].self)
            let origins = names.map { "\($0): \(reports["\($0):origins"]?.data.map { "\($0)" } ?? "?")" }.joined(
                separator: "; ")

            for name in ["sandboxed", "data"] {
                for step in ["open", "whoami"] {
                    let report = try #require(reports["\(name):\(step)"])
                    #expect(!report.ok, "\(name) \(step) is opaque (\(origins))")
                    #expect(report.code == "forbidden", "\(name) \(step)")
                    #expect(report.details?.string("reason") == "no_origin", "\(name) \(step)")
                }
                #expect(reports["\(name):origins"]?.data?.string("self") == "null", "\(name)")
            }
            for name in ["sandboxedSame", "srcdoc", "blank", "written", "blob"] {
                let open = try #require(reports["\(name):open"])
                #expect(
                    open.ok,
                    "\(name) inherits or has origin a (\(origins)): \(open.code ?? "") \(open.details.map { "\($0)" } ?? "")"
                )
                #expect(open.data == ["from": .string(name)], "\(name)")
                #expect(
                    reports["\(name):whoami"]?.data == ["origin": .string(a.origin), "mainFrame": false], "\(name)")
                #expect(reports["\(name):origins"]?.data?.string("self") == a.origin, "\(name)")
            }
            let opened = Set(harness.probe.runs(of: "Open").compactMap { $0.options.string("from") })
            #expect(
                opened == ["sandboxedSame", "srcdoc", "blank", "written", "blob"], "an opaque frame never ran the task")
            #expect(harness.probe.runs(of: "Open").allSatisfy { $0.source == .subframe(a.origin) })
            #expect(
                !harness.probe.runs(of: "WhoAmI").contains { $0.source.origin == nil },
                "anyOrigin admits no opaque origin")
            // This host creates no new web view for window.open (no "create" handler): there is no
            // opened about:blank document to call from.
            #expect(try await harness.value("window.__opened", as: String.self) == "null")
            await harness.close()
        }
    }
}
#endif
