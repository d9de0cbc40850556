#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on the byte transport (`webbridge-binary:`) in real WebKitGTK: what frames that
    /// may not move bytes can still do to the page that may.
    @MainActor
    @Suite("Binary values under attack")
    struct BinaryAttack {
        /// A frame page that sends `count` bodies to random tokens as soon as it loads, and tells
        /// its parent when every request has been sent (not answered: they wait for a claim).
        static func floodPage(count: Int) -> String {
            E2EPage.html(
                title: "flood",
                head: """
                    <script>
                    (function () {
                      var answered = 0;
                      for (var i = 0; i < \(count); i++) {
                        var b = new Uint8Array(16); crypto.getRandomValues(b);
                        var token = Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join('');
                        fetch('webbridge-binary://transfer/' + token, {method: 'POST', body: new Uint8Array([1])})
                          .then(function () { answered++; }, function () { answered++; });
                      }
                      setTimeout(function () { parent.postMessage({flood: self.origin}, '*'); }, 300);
                    })();
                    </script>
                    """)
        }

        /// Kind of fault: a shared budget that requests nobody can authenticate may use up. A page
        /// request waits for its call's task to claim the token (the shim posts the body right
        /// after the call), and those waits were one budget for the whole web view, taken before
        /// the request's origin was looked at: another origin's frame (an ad, a widget) or an
        /// opaque-origin frame could keep it full with bodies for made-up tokens, and every
        /// binary value of the main frame was then refused before its task claimed it, so the
        /// main frame's calls timed out.
        @Test(
            "another origin's frame and a sandboxed frame flooding the transport with bodies for made-up tokens do not stop the main frame's uploads",
            .timeLimit(.minutes(1)))
        func waitingFloodFromOtherFrames() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 20, claimWait: 5))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            let flood = Self.floodPage(count: 40)
            b.routes["/flood"] = .init(body: flood)
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__floods = [];
                        window.addEventListener('message', function (e) { if (e.data && e.data.flood) { window.__floods.push(e.data.flood); } });
                        </script>
                        """,
                    body: """
                        <iframe src="\(b.origin)/flood"></iframe>
                        <iframe sandbox="allow-scripts" src="/flood"></iframe>
                        """))
            a.routes["/flood"] = .init(body: flood)
            let (harness, records) = (scene.harness, scene.records)
            // A task that asks something first (where to save, say) and claims the bytes later.
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "SaveLater") { (options: Binary.SaveOptions, context: CallContext) -> Int in
                    try await Task.sleep(for: .milliseconds(500))
                    return try await transfers.data(of: options.file, context: context).count
                })
            try await harness.load(a.origin + "/")
            try await harness.waitFor("window.__floods.length === 2")
            #expect(
                try await harness.value("window.__floods", as: [String].self).sorted() == [b.origin, "null"].sorted())
            try await harness.run(
                "e2eCall('save', 'Save', {file: pattern(1000)}); window.__expect = sum(pattern(1000)); e2eCall('later', 'SaveLater', {file: pattern(2000)});"
            )
            try await harness.waitForSettled(["save", "later"])
            let later = try await harness.outcome("later")
            #expect(later.ok, "the main frame's upload to a task that claims later went through: \(later.code ?? "")")
            #expect(later.data == 2000)
            let save = try await harness.outcome("save")
            #expect(save.ok, "the main frame's upload went through: \(save.code ?? "")")
            #expect(save.data?["bytes"] == 1000)
            #expect(try await harness.isTrue("window.__settled.save.data.sum === window.__expect"))
            #expect(records.list.map(\.outcome) == [.finished, .finished])
            await harness.close()
        }

        /// Kind of fault: bodies the app's process holds for requests nobody can authenticate.
        /// WebKit hands the app each request body whole; a frame of another origin that called
        /// nothing (the app's policy does not let it) used to have its bodies for made-up tokens
        /// wait for a claim (`requestWait`), so the app held them that long (563 MiB for 16
        /// bodies of 32 MiB on WebKitGTK 2.50). Such a frame can never match a claim: its requests
        /// are answered at once.
        @Test(
            "another origin's frame that called nothing gets its bodies for made-up tokens refused at once (404), not after the request wait",
            .timeLimit(.minutes(1)))
        func unallowedFrameNeverWaits() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 20, claimWait: 5))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            b.routes["/bodies"] = .init(
                body: E2EPage.html(
                    title: "bodies",
                    head: """
                        <script>
                        (function () {
                          var start = performance.now(), statuses = [];
                          for (var i = 0; i < 8; i++) {
                            var b = new Uint8Array(16); crypto.getRandomValues(b);
                            var token = Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join('');
                            fetch('webbridge-binary://transfer/' + token, {method: 'POST', body: new Uint8Array(1 << 20)})
                              .then(function (r) { return r.status; }, function () { return 0; })
                              .then(function (status) {
                                statuses.push(status);
                                if (statuses.length === 8) { parent.postMessage({statuses: statuses, ms: performance.now() - start}, '*'); }
                              });
                          }
                        })();
                        </script>
                        """))
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.addEventListener('message', function (e) { if (e.data && e.data.statuses) { window.__bodies = e.data; } });
                        </script>
                        """,
                    body: "<iframe src=\"\(b.origin)/bodies\"></iframe>"))
            let harness = scene.harness
            try await harness.load(a.origin + "/")
            try await harness.waitFor("!!window.__bodies", timeout: .seconds(15))
            #expect(
                try await harness.value("window.__bodies.statuses", as: [Int].self) == Array(repeating: 404, count: 8))
            #expect(try await harness.value("window.__bodies.ms", as: Double.self) < 5000, "answered at once")
            #expect(try #require(harness.transfers).waitTimers == 0)
            // The main frame's uploads still work.
            try await harness.run("e2eCall('save', 'Save', {file: pattern(1000)})")
            try await harness.waitForSettled(["save"])
            #expect(try await harness.outcome("save").ok)
            await harness.close()
        }

        /// Attacks tried in real WebKitGTK that the transport already refuses, pinned: lies about
        /// the size, a body that never comes, another origin's `Blob` body for a claimed token (a
        /// `Blob` body crashes WebKitGTK 2.50 when read, so it must be refused before), a redirect
        /// into the scheme, a second read, other methods and ranges, `document.open()` during
        /// transfers, a navigation and a close during an upload. Every call settles once.
        @Test(
            "refused attacks: size lies, a missing body, another origin's Blob body, a redirect, a second read, HEAD, Range, document.open(), navigation and close mid-upload",
            .timeLimit(.minutes(1)))
        func refusedAttacks() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 2, claimWait: 3))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            let framePage = E2EPage.html(
                title: "frame",
                head: """
                    <script>
                    window.addEventListener('message', function (e) {
                      var url = e.data.url || ('webbridge-binary://transfer/' + e.data.token);
                      var init = e.data.method === 'POST' ? {method: 'POST', body: e.data.blob ? new Blob([new Uint8Array([6, 6, 6])]) : new Uint8Array([6, 6, 6])} : {};
                      fetch(url, init).then(
                        function (r) { parent.postMessage({step: e.data.step, status: r.status}, '*'); },
                        function (err) { parent.postMessage({step: e.data.step, status: 'error ' + err}, '*'); });
                    });
                    </script>
                    """)
            b.routes["/frame"] = .init(body: framePage)
            b.routes["/redirect"] = .init(
                status: 302, headers: [("Location", "webbridge-binary://transfer/00000000000000000000000000000000")])
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__frame = {}; window.__p = {};
                        window.addEventListener('message', function (e) { window.__frame[e.data.step] = e.data; });
                        function tok() { var b = new Uint8Array(16); crypto.getRandomValues(b); return Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join(''); }
                        function st(key, p) { p.then(function (r) { return r.arrayBuffer().then(function (buf) { window.__p[key] = r.status + ':' + buf.byteLength; }); }, function (e) { window.__p[key] = 'error ' + e; }); }
                        </script>
                        """,
                    body: "<iframe id=f src=\"\(b.origin)/frame\"></iframe>"))
            let (harness, records) = (scene.harness, scene.records)
            try await harness.load(a.origin + "/")
            try await harness.waitFor("document.getElementById('f').contentDocument === null")
            try await Task.sleep(for: .milliseconds(300))
            try await harness.run(
                """
                e2eCall('o1', 'Offer', 1000); e2eCall('o2', 'Offer', 1000); e2eCall('o3', 'Offer', 1000);
                e2eCall('o4', 'Offer', 1000);
                """)
            try await harness.waitForSettled(["o1", "o2", "o3", "o4"])
            try await harness.run(
                """
                var U = 'webbridge-binary://transfer/';
                st('range', fetch(U + __settled.o1.data, {headers: {Range: 'bytes=0-9'}}));
                st('head', fetch(U + __settled.o2.data, {method: 'HEAD'}));
                st('dbl1', fetch(U + __settled.o3.data)); st('dbl2', fetch(U + __settled.o3.data));
                function type(key, p) { p.then(function (r) { window.__p[key] = r.status + ':' + r.headers.get('content-type'); }); }
                type('type', fetch(U + __settled.o4.data)); type('type404', fetch(U + tok()));
                var t4 = tok(); e2eCall('bigger', 'Save', {file: {'$bridgeBinary': {token: t4, size: 3}}});
                st('biggerPost', sendBytes(U + t4, {method: 'POST', body: new Uint8Array(10)}));
                var t5 = tok(); e2eCall('never', 'Save', {file: {'$bridgeBinary': {token: t5, size: 3}}});
                e2eCall('neg', 'Save', {file: {'$bridgeBinary': {token: tok(), size: -1}}});
                e2eCall('huge', 'Save', {file: {'$bridgeBinary': {token: tok(), size: 1152921504606846976}}});
                e2eCall('frac', 'Save', {file: {'$bridgeBinary': {token: tok(), size: 2.5}}});
                var t6 = tok(); e2eCall('smaller', 'Save', {file: {'$bridgeBinary': {token: t6, size: 10}}});
                st('smallerPost', sendBytes(U + t6, {method: 'POST', body: new Uint8Array(3)}));
                var t7 = tok(); e2eCall('xblob', 'Save', {file: {'$bridgeBinary': {token: t7, size: 3}}});
                document.getElementById('f').contentWindow.postMessage({step: 'xblob', token: t7, method: 'POST', blob: true}, '*');
                document.getElementById('f').contentWindow.postMessage({step: 'redirect', url: '\(b.origin)/redirect'}, '*');
                """)
            try await harness.waitForSettled(["bigger", "never", "neg", "huge", "frac", "smaller", "xblob"])
            try await harness.waitFor(
                "window.__frame.xblob !== undefined && window.__frame.redirect !== undefined && Object.keys(window.__p).length >= 8"
            )
            // document.open() during an upload and during a download.
            try await harness.run(
                """
                e2eCall('openUp', 'Save', {file: pattern(8 << 20)});
                e2eCall('openDown', 'Stream', 100);
                setTimeout(function () { document.open(); document.write('<p>replaced</p>'); document.close(); }, 20);
                """)
            try await harness.waitForSettled(["openUp", "openDown"])
            let expected: [String: String?] = [
                "bigger": "payload_too_large", "never": "timeout", "neg": "invalid_options",
                "huge": "payload_too_large",
                "frac": "invalid_options", "smaller": "invalid_options", "xblob": "timeout", "openUp": nil,
                "openDown": nil,
            ]
            for (key, code) in expected {
                let outcome = try await harness.json(
                    "(function (o) { return {ok: o.ok, code: o.code || null, n: window.__settleCount['\(key)']}; })(window.__settled['\(key)'])"
                )
                #expect(outcome["ok"] == .bool(code == nil), "\(key): \(outcome)")
                #expect(outcome["code"] == (code.map { JSONValue.string($0) } ?? .null), "\(key): \(outcome)")
                #expect(outcome["n"] == 1, "\(key) settled once")
            }
            #expect(try await harness.isTrue("window.__settled.openDown.data.length === 100 * 262144"))
            let fetches = try await harness.value("window.__p", as: [String: String].self)
            #expect(fetches["biggerPost"]?.hasPrefix("413:") == true, "\(fetches)")
            #expect(fetches["smallerPost"]?.hasPrefix("400:") == true, "\(fetches)")
            #expect(fetches["range"] == "200:1000", "a range is ignored: the whole body, once")
            #expect(fetches["head"]?.hasPrefix("405:") == true, "\(fetches)")
            // The response's type reaches the page (WebKitGTK builds the response from its headers
            // when it has any: a type set only with set_content_type was lost).
            #expect(fetches["type"] == "200:application/octet-stream", "\(fetches)")
            #expect(fetches["type404"] == "404:application/json", "\(fetches)")
            // The two reads of one token start together, and either can reach the app first: one
            // gets the bytes, the other is told the token is in use (409) or gone (404).
            let reads = [fetches["dbl1"] ?? "", fetches["dbl2"] ?? ""]
            #expect(
                reads.filter { $0 == "200:1000" }.count == 1
                    && reads.filter { $0.hasPrefix("409:") || $0.hasPrefix("404:") }.count == 1,
                "a second read of one token: in use (409) or gone (404), never the bytes again: \(fetches)")
            // Refused before its body is read (a Blob body crashes WebKitGTK 2.50 when read): 403 once
            // the main frame's task claimed the token, 404 before (that origin called nothing).
            let xblob = try await harness.value("window.__frame.xblob.status", as: JSONValue.self)
            #expect(xblob == 403 || xblob == 404, "\(xblob)")
            #expect(try await harness.isTrue("String(window.__frame.redirect.status).indexOf('error') === 0"))
            #expect(try await harness.isTrue("WebBridge.pendingCount() === 0"))

            // A navigation, then a close, in the middle of an upload: each transfer ends once.
            let before = records.list.count
            try await harness.run("e2eCall('navUp', 'Save', {file: new Uint8Array(64 << 20)});")
            try await Task.sleep(for: .milliseconds(150))
            try await harness.reload()
            #expect(await eventually { records.list.count > before })
            let navigated = records.list.dropFirst(before).filter { $0.direction == .upload }.map(\.outcome)
            #expect(navigated.count == 1 && navigated.first != .finished, "ended once, not finished: \(navigated)")
            let beforeClose = records.list.count
            try await harness.run("e2eCall('closeUp', 'Save', {file: new Uint8Array(64 << 20)});")
            try await Task.sleep(for: .milliseconds(150))
            await harness.close()
            #expect(await eventually { records.list.count > beforeClose })
            try await Task.sleep(for: .milliseconds(200))
            #expect(records.list.dropFirst(beforeClose).map(\.outcome) == [.cancelled])
        }
        /// Attacks on uploads in parts (a refusal ends the upload at once, the app's part size)
        /// that the transport already refuses, pinned: another origin's frame and a sandboxed frame
        /// that know the main frame's token send the next part before the page does, a part out of
        /// order, an over-size part, a whole body and a read of it (403, the upload untouched; a
        /// foreign refusal must never end it); the page's own malformed offsets (negative, NaN,
        /// over 15 digits) name no transfer (404) and leave the upload alone. The main frame's
        /// upload then finishes with its own bytes, its call settles once.
        @Test(
            "refused part attacks: other frames' next, out-of-order and over-size parts for the main frame's token, malformed offsets; the upload finishes with the page's bytes",
            .timeLimit(.minutes(1)))
        func refusedPartAttacks() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 5, claimWait: 10))
            defer { scene.stop() }
            let (a, b) = (scene.a, scene.b)
            let framePage = E2EPage.html(
                title: "frame",
                head: """
                    <script>
                    window.addEventListener('message', function (e) {
                      var d = e.data;
                      var init = d.method === 'GET' ? {} : {method: 'POST', body: new Uint8Array(d.size).fill(9)};
                      fetch(d.url, init).then(
                        function (r) { return r.text().then(function (t) { parent.postMessage({step: d.step, status: r.status, text: t}, '*'); }); },
                        function (err) { parent.postMessage({step: d.step, status: 'error ' + err}, '*'); });
                    });
                    </script>
                    """)
            b.routes["/frame"] = .init(body: framePage)
            a.routes["/frame"] = .init(body: framePage)
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__frame = {};
                        window.addEventListener('message', function (e) { window.__frame[e.data.step] = e.data; });
                        </script>
                        """,
                    body:
                        "<iframe id=x src=\"\(b.origin)/frame\"></iframe><iframe id=s sandbox=\"allow-scripts\" src=\"/frame\"></iframe>"
                ))
            let (harness, records) = (scene.harness, scene.records)
            try await harness.load(a.origin + "/")
            try await Task.sleep(for: .milliseconds(300))
            try await harness.run(
                """
                var U = 'webbridge-binary://transfer/c0ffee00c0ffee00c0ffee00c0ffee00';
                window.__own = {};
                function own(key, url, bytes) {
                  return sendBytes(url, {method: 'POST', body: new Uint8Array(bytes)}).then(
                    function (r) { return r.json().then(function (j) { window.__own[key] = r.status + ':' + j.code; }); },
                    function (e) { window.__own[key] = 'error ' + e; });
                }
                e2eCall('victim', 'Save', {file: {'$bridgeBinary': {token: 'c0ffee00c0ffee00c0ffee00c0ffee00', size: 6}}});
                own('first', U + '?offset=0', [1, 2, 3]).then(function () {
                  var frames = {x: document.getElementById('x').contentWindow, s: document.getElementById('s').contentWindow};
                  ['x', 's'].forEach(function (f) {
                    frames[f].postMessage({step: f + 'Next', url: U + '?offset=3', size: 3}, '*');
                    frames[f].postMessage({step: f + 'Order', url: U + '?offset=99', size: 3}, '*');
                    frames[f].postMessage({step: f + 'Big', url: U + '?offset=3', size: 2 << 20}, '*');
                    frames[f].postMessage({step: f + 'Whole', url: U, size: 6}, '*');
                    frames[f].postMessage({step: f + 'Get', url: U, method: 'GET'}, '*');
                  });
                });
                """)
            let steps = ["Next", "Order", "Big", "Whole", "Get"].flatMap { ["x" + $0, "s" + $0] }
            try await harness.waitFor(
                "\(steps.map { "window.__frame.\($0) !== undefined" }.joined(separator: " && "))")
            try await harness.run(
                """
                Promise.all([own('negative', U + '?offset=-1', [7]), own('nan', U + '?offset=NaN', [7]),
                  own('long', U + '?offset=0000000000000003', [7]), own('empty', U + '?offset=', [7])]).then(function () {
                  return own('last', U + '?offset=3', [4, 5, 6]);
                });
                """)
            try await harness.waitForSettled(["victim"])
            try await harness.waitFor("window.__own.last !== undefined")
            let frames = try await harness.value("window.__frame", as: [String: JSONValue].self)
            for step in steps {
                let status = frames[step]?["status"]
                #expect(
                    status == 403 || (step.hasSuffix("Get") && status == 404),
                    "\(step): another origin is refused, the upload untouched: \(frames[step] ?? .null)")
            }
            let own = try await harness.value("window.__own", as: [String: String].self)
            #expect(own["first"] == "200:ok", "\(own)")
            for key in ["negative", "nan", "long", "empty"] {
                #expect(own[key] == "404:unknown_transfer", "\(key): names no transfer: \(own)")
            }
            let victim = try await harness.outcome("victim")
            #expect(victim.ok, "the main frame's upload finished: \(victim.code ?? "")")
            #expect(victim.data?["bytes"] == 6)
            #expect(victim.data?["sum"] == 21, "the page's own bytes, none of the frames'")
            #expect(try await harness.value("window.__settleCount.victim", as: Int.self) == 1)
            #expect(records.list.map(\.outcome) == [.finished])
            await harness.close()
        }
    }
}
#endif
