#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The byte transport's waiting rule attacked in real WebKitGTK (``waitingRuleRefusals()``).
    @MainActor
    @Suite("Binary waiting rule under attack")
    struct BinaryWaitingRule {
        /// A frame script: `bodies(n, done)` posts `n` bodies of 1 MiB to made-up tokens at once and
        /// calls `done({statuses, reasons, ms})` once all are answered.
        static let bodiesScript = """
            function tok() { var b = new Uint8Array(16); crypto.getRandomValues(b); return Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join(''); }
            function bodies(n, done) {
              var start = performance.now(), statuses = [], reasons = [];
              for (var i = 0; i < n; i++) {
                fetch('webbridge-binary://transfer/' + tok(), {method: 'POST', body: new Uint8Array(1 << 20)})
                  .then(function (r) { return r.json().then(function (j) { return [r.status, j.reason]; }, function () { return [r.status, null]; }); },
                    function () { return [0, null]; })
                  .then(function (s) {
                    statuses.push(s[0]); reasons.push(s[1]);
                    if (statuses.length === n) { done({statuses: statuses, reasons: reasons, ms: performance.now() - start}); }
                  });
              }
            }
            """

        /// The waiting rule (only an origin the router admitted a call of in the current document
        /// may have its requests wait for a claim, holding their bodies) attacked in real WebKitGTK,
        /// pinned: a frame of another origin and a sandboxed (opaque) frame whose calls are all
        /// refused (by the policy, an unknown task, fire and forget) get no wait from them, even while
        /// the main frame has a call pending; a later document's frame of the earlier document's
        /// calling origin gets none either (the record ends with its document). Their bodies for
        /// made-up tokens are answered `404 no_room` at once (the request wait is 20 s).
        @Test(
            "refused calls, fire-and-forget calls and an earlier document's calls never let a frame's bodies wait for a claim",
            .timeLimit(.minutes(1)))
        func waitingRuleRefusals() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 20, claimWait: 5))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            let attacker = E2EPage.html(
                title: "attacker",
                head: """
                    <script>
                    \(Self.bodiesScript)
                    window.addEventListener('message', function (e) {
                      if (e.data !== 'go') { return; }
                      var codes = [];
                      function note(p) { return p.then(function () { codes.push('ok'); }, function (err) { codes.push(err && err.code); }); }
                      var sent = WebBridge.notify('Hold', {});
                      Promise.all([
                        note(WebBridge.call('Save', {file: new Uint8Array(1 << 16)})),
                        note(WebBridge.call('Hold', {})),
                        note(WebBridge.call('NoSuchTask', {}))
                      ]).then(function () {
                        setTimeout(function () {
                          bodies(8, function (r) { r.codes = codes.sort(); r.notified = sent; r.origin = self.origin; parent.postMessage({attack: r}, '*'); });
                        }, 100);
                      });
                    });
                    </script>
                    """)
            b.routes["/attacker"] = .init(body: attacker)
            a.routes["/attacker"] = .init(body: attacker)
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__attacks = [];
                        window.addEventListener('message', function (e) { if (e.data && e.data.attack) { window.__attacks.push(e.data.attack); } });
                        </script>
                        """,
                    body: """
                        <iframe id=x src="\(b.origin)/attacker"></iframe>
                        <iframe id=s sandbox="allow-scripts" src="/attacker"></iframe>
                        """))
            // The later document (another origin) with a frame of the earlier document's origin.
            a.routes["/bodies"] = .init(
                body: E2EPage.html(
                    title: "bodies",
                    head: """
                        <script>
                        \(Self.bodiesScript)
                        bodies(8, function (r) { parent.postMessage({later: r}, '*'); });
                        </script>
                        """))
            b.routes["/later"] = .init(
                body: E2EPage.html(
                    title: "later",
                    head: """
                        <script>
                        window.addEventListener('message', function (e) { if (e.data && e.data.later) { window.__later = e.data.later; } });
                        </script>
                        """,
                    body: "<iframe src=\"\(a.origin)/bodies\"></iframe>"))
            let harness = scene.harness
            let held = Locked(0)
            try harness.router.register(
                ClosureTask(name: "Hold") { (_: NoOptions, _: CallContext) -> Int in
                    held.update { $0 += 1 }
                    try await Task.sleep(for: .seconds(3600))
                    return 0
                })
            try await harness.load(a.origin + "/")
            // The main frame's origin has called (a call pending): only its own requests may wait.
            try await harness.run("e2eCall('hold', 'Hold', {})")
            #expect(await eventually { held.value == 1 })
            try await harness.run(
                "document.getElementById('x').contentWindow.postMessage('go', '*'); document.getElementById('s').contentWindow.postMessage('go', '*');"
            )
            try await harness.waitFor("window.__attacks.length === 2", timeout: .seconds(20))
            let attacks = try await harness.json("window.__attacks")
            for attack in attacks.arrayValue ?? [] {
                #expect(
                    attack["codes"] == ["forbidden", "forbidden", "forbidden"]
                        || attack["codes"] == [
                            "forbidden", "forbidden", "unknown_task",
                        ], "\(attack)")
                #expect(attack["statuses"] == .array(Array(repeating: 404, count: 8)), "\(attack)")
                // An opaque origin can never match a claim: its answer gives no reason to send again.
                let reason: JSONValue = attack["origin"] == "null" ? .null : "no_room"
                #expect(attack["reasons"] == .array(Array(repeating: reason, count: 8)), "\(attack)")
                #expect((attack["ms"]?.doubleValue ?? 1e9) < 5000, "answered at once: \(attack)")
            }
            #expect(Set((attacks.arrayValue ?? []).compactMap { $0["origin"]?.stringValue }) == [b.origin, "null"])
            #expect(held.value == 1, "only the main frame's call ran")
            // A later document: the earlier one's calling origin does not carry over.
            try await harness.load(b.origin + "/later")
            try await harness.waitFor("!!window.__later", timeout: .seconds(20))
            let later = try await harness.json("window.__later")
            #expect(later["statuses"] == .array(Array(repeating: 404, count: 8)), "\(later)")
            #expect(later["reasons"] == .array(Array(repeating: "no_room", count: 8)), "\(later)")
            #expect((later["ms"]?.doubleValue ?? 1e9) < 5000, "answered at once: \(later)")
            #expect(try #require(harness.transfers).waitTimers == 0, "no request ever waited")
            await harness.close()
        }

        /// The reply envelope's `binary` member attacked in real WebKitGTK, pinned: a frame of
        /// another origin and a sandboxed frame that know the main frame's download token forge
        /// its announcement through their own shim (a page-world `_receive` of a reply whose
        /// envelope lists it, then an event with its placeholder) and fetch it directly: nothing
        /// reaches them (403), and the offer stays the main
        /// frame's, which then reads its bytes once. A later document that forges the same
        /// announcement for the earlier document's token gets nothing either (404).
        @Test(
            "a forged envelope announcement in another origin's, a sandboxed or a later document neither steals a download nor ends it",
            .timeLimit(.minutes(1)))
        func forgedEnvelopeTokens() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 2, claimWait: 5))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            let thief = E2EPage.html(
                title: "thief",
                head: """
                    <script>
                    window.addEventListener('message', function (e) {
                      var t = e.data.token, got = null, result = {origin: self.origin};
                      WebBridge.on('loot', function (d) { got = d; });
                      WebBridge._receive({v: 1, kind: 'reply', id: 'forged-1', ok: true, binary: [t], data: null});
                      WebBridge._receive({v: 1, kind: 'event', name: 'loot', data: {f: {'$bridgeBinary': {token: t, size: 100}}}});
                      fetch('webbridge-binary://transfer/' + t).then(function (r) { return r.status; }, function () { return 0; })
                        .then(function (status) {
                          result.status = status;
                          setTimeout(function () {
                            result.got = got === null ? null : (got.f instanceof Uint8Array ? 'bytes' : typeof got.f);
                            parent.postMessage({thief: result}, '*');
                          }, 500);
                        });
                    });
                    </script>
                    """)
            b.routes["/thief"] = .init(body: thief)
            a.routes["/thief"] = .init(body: thief)
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__thieves = [];
                        window.addEventListener('message', function (e) { if (e.data && e.data.thief) { window.__thieves.push(e.data.thief); } });
                        </script>
                        """,
                    body: """
                        <iframe id=x src="\(b.origin)/thief"></iframe>
                        <iframe id=s sandbox="allow-scripts" src="/thief"></iframe>
                        """))
            let (harness, records) = (scene.harness, scene.records)
            try await harness.load(a.origin + "/")
            try await harness.run("e2eCall('offer', 'Offer', 100)")
            try await harness.waitForSettled(["offer"])
            let token = try #require(try await harness.outcome("offer").data?.stringValue)
            try await harness.run(
                "['x', 's'].forEach(function (id) { document.getElementById(id).contentWindow.postMessage({token: '\(token)'}, '*'); });"
            )
            try await harness.waitFor("window.__thieves.length === 2")
            let thieves = try await harness.json("window.__thieves")
            for thief in thieves.arrayValue ?? [] {
                #expect(thief["status"] == 403, "\(thief)")
                // The forged reply settles no call, so the shim gives its token back at once and the
                // event's placeholder stays data (before: the event's read was refused, 403).
                #expect(thief["got"] != "bytes", "no bytes reached the forged event: \(thief)")
            }
            // The offer is still the main frame's: its bytes, once.
            try await harness.run(
                "fetch('webbridge-binary://transfer/\(token)').then(function (r) { return r.arrayBuffer().then(function (x) { window.__own = r.status + ':' + x.byteLength; }); }, function (e) { window.__own = 'error ' + e; });"
            )
            try await harness.waitFor("window.__own !== undefined")
            #expect(try await harness.value("window.__own", as: String.self) == "200:100")
            #expect(records.list.map(\.outcome) == [.finished])
            // A later document forging the earlier document's token gets nothing.
            try await harness.run("e2eCall('offer2', 'Offer', 100)")
            try await harness.waitForSettled(["offer2"])
            let old = try #require(try await harness.outcome("offer2").data?.stringValue)
            try await harness.reload()
            try await harness.run(
                """
                window.__late = null;
                WebBridge.on('loot', function (d) { window.__late = d; });
                WebBridge._receive({v: 1, kind: 'reply', id: 'forged-2', ok: true, binary: ['\(old)'], data: null});
                WebBridge._receive({v: 1, kind: 'event', name: 'loot', data: {f: {'$bridgeBinary': {token: '\(old)', size: 100}}}});
                fetch('webbridge-binary://transfer/\(old)').then(function (r) { window.__lateStatus = r.status; }, function () { window.__lateStatus = 0; });
                """)
            try await harness.waitFor("window.__lateStatus !== undefined")
            #expect(try await harness.value("window.__lateStatus", as: Int.self) == 404)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.isTrue("window.__late === null || !(window.__late.f instanceof Uint8Array)"))
            #expect(
                records.list.map(\.outcome) == [.finished, .cancelled],
                "the earlier offer ended once, with its document")
            await harness.close()
        }

        /// Kind of fault: a bounded record that others can fill first (core test
        /// `BinaryAttackTests.callingOriginsFilledFirst`). Frames of 64 other origins the app lets
        /// call that called before the main frame filled the document's record of calling
        /// origins; the main frame's origin was never recorded, its body got `no_room` at every
        /// send, the shim gave up after about 4 s, and a task that reads its bytes 5 s after the
        /// call (it asks where to save first) waited `claimWait` for nothing and failed.
        @Test(
            "frames of 64 other origins that called first do not make the main frame's upload to a task that reads it 5 s later fail",
            .timeLimit(.minutes(1)))
        func callingOriginsFilledFirst() async throws {
            let servers = try (0..<64).map { _ in try LoopbackServer() }
            defer { for server in servers { server.stop() } }
            let a = try LoopbackServer()
            defer { a.stop() }
            for server in servers {
                server.routes["/caller"] = .init(
                    body: E2EPage.html(title: "caller", head: "<script>WebBridge.call('Hold', {});</script>"))
            }
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main", head: "<script>\(Binary.pageScript)</script>",
                    body: servers.map { "<iframe src=\"\($0.origin)/caller\"></iframe>" }.joined()))
            let held = Locked(0)
            let harness = try E2EHarness(
                policy: .anyOrigin(allowsSubframes: true), binaryLimits: BinaryLimits(requestWait: 20, claimWait: 3))
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "Hold") { (_: NoOptions, _: CallContext) -> Int in
                    held.update { $0 += 1 }
                    try await Task.sleep(for: .seconds(3600))
                    return 0
                })
            try harness.router.register(
                ClosureTask(name: "SaveLater") { (options: Binary.SaveOptions, context: CallContext) -> Int in
                    try await Task.sleep(for: .seconds(5))
                    return try await transfers.data(of: options.file, context: context).count
                })
            try await harness.load(a.origin + "/")
            #expect(await eventually { held.value == 64 }, "every frame's call is pending")
            try await harness.run("e2eCall('later', 'SaveLater', {file: pattern(1000)})")
            try await harness.waitForSettled(["later"])
            let later = try await harness.outcome("later")
            #expect(later.ok, "the main frame's upload went through: \(later.code ?? "")")
            #expect(later.data == 1000)
            await harness.close()
        }
    }
}
#endif
