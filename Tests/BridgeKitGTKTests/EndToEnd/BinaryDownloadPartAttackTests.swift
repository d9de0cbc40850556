#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on downloads read in parts (`GET …?offset=<n>`, `?cancel`) in real WebKitGTK: what
    /// another origin's frame and a sandboxed (opaque-origin) frame can do to the main frame's
    /// streamed download when they know its token.
    @MainActor
    @Suite("Binary download parts under attack")
    struct BinaryDownloadPartAttack {
        nonisolated static let chunkBytes = BinaryStream.chunkBytes

        /// The tokens the `Offered` task handed out, in order.
        final class OfferedTokens: Sendable {
            let list = Mutex<[String]>([])
        }

        /// A harness for a page of `origin` with an `Offered` task: a `send(chunks:)` download of
        /// `count` chunks of ``chunkBytes`` (declared size), whose records and producer ends go to
        /// the returned `Ends` and whose tokens to the returned list.
        static func offeringHarness(_ origin: String) throws -> (
            E2EHarness, BinaryStream.Ends, BinaryTransfers, OfferedTokens
        ) {
            let harness = try E2EHarness(
                policy: .origins([OriginPattern(origin)]),
                binaryLimits: BinaryLimits(chunkBytes: Self.chunkBytes, requestWait: 5, claimWait: 10))
            let ends = BinaryStream.Ends()
            let transfers = try #require(harness.transfers)
            transfers.setTransferObserver { record in ends.records.withLock { $0.append(record) } }
            let tokens = OfferedTokens()
            try harness.router.register(
                ClosureTask(name: "Offered") {
                    (options: BinaryStream.ChunksOptions, context: CallContext) -> BridgeBinary in
                    let chunks = BinaryStream.producer(
                        count: options.count, pause: .milliseconds(options.pauseMs), failAt: nil, ends: ends)
                    let binary = try await transfers.send(
                        chunks: chunks, size: options.count * Self.chunkBytes, context: context)
                    tokens.list.withLock { $0.append(binary.token) }
                    return binary
                })
            return (harness, ends, transfers, tokens)
        }
        nonisolated static let chunks = 8

        /// A frame that fetches what its parent asks (`{step, url}`, `GET`) and posts back the status.
        static let framePage = E2EPage.html(
            title: "frame",
            head: """
                <script>
                window.addEventListener('message', function (e) {
                  var d = e.data;
                  fetch(d.url, {cache: 'no-store'}).then(
                    function (r) { return r.text().then(function (t) { parent.postMessage({step: d.step, status: r.status, text: t.slice(0, 64)}, '*'); }); },
                    function (err) { parent.postMessage({step: d.step, status: 'error ' + err}, '*'); });
                });
                </script>
                """)

        /// The main page: `start()` calls `Offered` with `binary: "stream"` and keeps the reader;
        /// `readOne()` reads one chunk, `readRest()` the rest, checking every byte (`__s`).
        static func mainPage(frameOrigin: String) -> String {
            E2EPage.html(
                title: "main",
                head: """
                    <script>
                    window.__frame = {};
                    window.addEventListener('message', function (e) { if (e.data && e.data.step) { window.__frame[e.data.step] = e.data; } });
                    window.__s = {bytes: 0, sumOk: true, ends: 0, end: null, code: null, settles: 0};
                    function take(chunk) {
                      var s = window.__s;
                      for (var i = 0; i < chunk.length; i += 4093) {
                        if (chunk[i] !== Math.floor((s.bytes + i) / \(chunkBytes)) % 251) { s.sumOk = false; }
                      }
                      if (chunk[chunk.length - 1] !== Math.floor((s.bytes + chunk.length - 1) / \(chunkBytes)) % 251) { s.sumOk = false; }
                      s.bytes += chunk.length;
                    }
                    function start() {
                      var s = window.__s;
                      WebBridge.call('Offered', {count: \(chunks), pauseMs: 0}, {binary: 'stream'}).then(function (v) {
                        s.settles++;
                        s.size = v.size;
                        window.__reader = v.stream.getReader();
                        window.__reader.closed.then(function () { s.ends++; s.end = 'closed'; },
                          function (e) { s.ends++; s.end = 'error'; s.code = e && e.code; });
                        s.ready = true;
                      }, function (e) { s.settles++; s.end = 'call-failed'; s.code = e && e.code; });
                    }
                    async function readOne() {
                      var step = await window.__reader.read();
                      if (!step.done) { take(step.value); }
                      window.__s.first = true;
                    }
                    async function readRest() {
                      try {
                        for (;;) {
                          var step = await window.__reader.read();
                          if (step.done) { break; }
                          take(step.value);
                        }
                      } catch (e) { /* closed records it */ }
                    }
                    function attack(round, token, offsets) {
                      var U = 'webbridge-binary://transfer/' + token;
                      var frames = {x: document.getElementById('x').contentWindow, s: document.getElementById('s').contentWindow};
                      ['x', 's'].forEach(function (f) {
                        offsets.forEach(function (o) {
                          frames[f].postMessage({step: round + f + 'Part' + o, url: U + '?offset=' + o}, '*');
                        });
                        frames[f].postMessage({step: round + f + 'Cancel', url: U + '?cancel'}, '*');
                        frames[f].postMessage({step: round + f + 'Whole', url: U}, '*');
                      });
                    }
                    </script>
                    """,
                body:
                    "<iframe id=x src=\"\(frameOrigin)/frame\"></iframe><iframe id=s sandbox=\"allow-scripts\" src=\"/frame\"></iframe>"
            )
        }

        /// The steps `attack(round, token, offsets)` posts, by name.
        static func steps(_ round: String, offsets: [Int]) -> [String] {
            ["x", "s"].flatMap { f in
                offsets.map { "\(round)\(f)Part\($0)" } + ["\(round)\(f)Cancel", "\(round)\(f)Whole"]
            }
        }

        /// Another origin's frame and a sandboxed frame of the page's own origin ask for the main
        /// frame's streamed download read in parts: its first part and `?cancel` before the page
        /// reads it; its next part, an earlier one, a huge offset, `?cancel` and a whole `GET`
        /// while the page reads it. Each is refused 403 (the frames' origin is not the
        /// download's), none ends, stalls or takes a part of it: the page then reads every byte,
        /// in order, its stream and the transfer end once, finished, and the producer once.
        @Test(
            "refused download-part attacks: another origin's and a sandboxed frame's ?offset, ?cancel and whole GET for the main frame's token get 403; the streamed download finishes with its exact bytes, once",
            .timeLimit(.minutes(1)))
        func refusedDownloadPartAttacks() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            b.routes["/frame"] = .init(body: Self.framePage)
            a.routes["/frame"] = .init(body: Self.framePage)
            a.routes["/"] = .init(body: Self.mainPage(frameOrigin: b.origin))
            let (harness, ends, transfers, tokens) = try Self.offeringHarness(a.origin)
            try await harness.load(a.origin + "/")
            try await Task.sleep(for: .milliseconds(300))
            try await harness.run("start()")
            try await harness.waitFor("window.__s.ready === true")
            let token = try #require(tokens.list.withLock { $0.first })

            // Unread: the first part and ?cancel.
            let before = [0]
            try await harness.run("attack('u', '\(token)', \(before))")
            let unread = Self.steps("u", offsets: before)
            try await harness.waitFor(unread.map { "window.__frame.\($0) !== undefined" }.joined(separator: " && "))

            // Being read: the next part, the first again, a huge offset, ?cancel, a whole GET.
            try await harness.run("readOne()")
            try await harness.waitFor("window.__s.first === true")
            let during = [Self.chunkBytes, 0, 999_999_999_999_999]
            try await harness.run("attack('r', '\(token)', \(during))")
            let reading = Self.steps("r", offsets: during)
            try await harness.waitFor(reading.map { "window.__frame.\($0) !== undefined" }.joined(separator: " && "))
            #expect(ends.recordList.isEmpty, "no frame ended it: \(ends.recordList)")

            try await harness.run("readRest()")
            try await harness.waitFor("window.__s.ends === 1")
            let frames = try await harness.value("window.__frame", as: [String: JSONValue].self)
            for step in unread + reading {
                #expect(frames[step]?["status"] == 403, "\(step): refused as another origin: \(frames[step] ?? .null)")
            }
            let total = Self.chunks * Self.chunkBytes
            #expect(try await harness.value("window.__s.end", as: String.self) == "closed")
            #expect(try await harness.value("window.__s.bytes", as: Int.self) == total)
            #expect(try await harness.isTrue("window.__s.sumOk && window.__s.size === \(total)"), "its exact bytes")
            #expect(await eventually { ends.recordList.count == 1 && ends.terminationList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.finished])
            #expect(ends.recordList.first?.bytes == total)
            #expect(ends.terminationList == ["finished"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.value("window.__s.ends", as: Int.self) == 1, "once")
            #expect(try await harness.value("window.__s.settles", as: Int.self) == 1, "the call settled once")
            #expect(ends.recordList.count == 1 && ends.terminationList.count == 1, "once")
            #expect(transfers.openTransfers == 0)
            await harness.close()
        }

        /// A page of the download's own origin that fetches parts by hand (`hf(key, url)`, the
        /// status and byte count in `__r[key]`; `offer(n)` calls `Offered` without reading).
        static let racePage = E2EPage.html(
            title: "races",
            head: """
                <script>
                window.__r = {};
                window.__calls = 0;
                function offer(count) {
                  WebBridge.call('Offered', {count: count, pauseMs: 0}, {binary: 'stream'}).then(
                    function () { window.__calls++; }, function () { window.__calls++; });
                }
                function hf(key, url) {
                  return fetch(url, {cache: 'no-store'}).then(function (r) {
                    return r.arrayBuffer().then(function (b) { window.__r[key] = {status: r.status, bytes: b.byteLength}; });
                  }).catch(function (e) { window.__r[key] = {status: 'error', bytes: 0}; });
                }
                </script>
                """)

        /// A page of the download's own origin races its requests against each other and against
        /// the document's end: four requests for the first part and a whole `GET` at once (one
        /// served, the rest 409, the download read to its end once); a part and `?cancel` at once
        /// (the download ends once, cancelled; later parts name nothing); a part for the token of
        /// the document before (404, the download ended with its document). Native holds nothing
        /// after each, and every transfer ends exactly once.
        @Test(
            "same-origin download-part races: concurrent first parts and a whole GET, a part with ?cancel, an earlier document's token; each download ends once and nothing is held",
            .timeLimit(.minutes(1)))
        func downloadPartRaces() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/"] = .init(body: Self.racePage)
            a.routes["/next"] = .init(body: Self.racePage)
            let (harness, ends, transfers, tokens) = try Self.offeringHarness(a.origin)
            try await harness.load(a.origin + "/")
            let part = Self.chunkBytes
            func offered(_ n: Int) async throws -> String {
                try await harness.run("offer(3)")
                try await harness.waitFor("window.__calls === \(n)")
                return try #require(tokens.list.withLock { $0.count == n ? $0.last : nil })
            }
            func url(_ token: String, _ query: String = "") -> String {
                "'webbridge-binary://transfer/\(token)\(query)'"
            }

            // Four first parts and a whole GET at once: one served, the others refused 409.
            let one = try await offered(1)
            try await harness.run(
                "['p1', 'p2', 'p3', 'p4'].forEach(function (k) { hf(k, \(url(one, "?offset=0"))); }); hf('w', \(url(one)));"
            )
            try await harness.waitFor("['p1', 'p2', 'p3', 'p4', 'w'].every(function (k) { return window.__r[k]; })")
            let first = try await harness.value("window.__r", as: [String: JSONValue].self)
            let served = ["p1", "p2", "p3", "p4", "w"].filter { first[$0]?["status"] == 200 }
            #expect(served.count == 1, "one request served: \(first)")
            for key in ["p1", "p2", "p3", "p4", "w"] where !served.contains(key) {
                #expect(first[key]?["status"] == 409, "\(key): \(first)")
            }
            if served.first == "w" {
                #expect(first["w"]?["bytes"] == .int(Int64(3 * part)))
            } else {
                #expect(first[served.first ?? "p1"]?["bytes"] == .int(Int64(part)))
                try await harness.run(
                    "hf('n1', \(url(one, "?offset=\(part)"))).then(function () { hf('n2', \(url(one, "?offset=\(2 * part)"))); })"
                )
                try await harness.waitFor("window.__r.n2 !== undefined")
                #expect(try await harness.isTrue("window.__r.n1.status === 200 && window.__r.n2.status === 200"))
                #expect(try await harness.isTrue("window.__r.n1.bytes + window.__r.n2.bytes === \(2 * part)"))
            }
            #expect(await eventually { ends.recordList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.finished])
            #expect(ends.recordList.first?.bytes == 3 * part)

            // A part and ?cancel at once, after the first part.
            let two = try await offered(2)
            try await harness.run("hf('c0', \(url(two, "?offset=0")))")
            try await harness.waitFor("window.__r.c0 !== undefined")
            try await harness.run("hf('c1', \(url(two, "?offset=\(part)"))); hf('cc', \(url(two, "?cancel")));")
            try await harness.waitFor("window.__r.c1 !== undefined && window.__r.cc !== undefined")
            #expect(try await harness.value("window.__r.cc.status", as: Int.self) == 200)
            #expect(await eventually { ends.recordList.count == 2 })
            #expect(ends.recordList.last?.outcome == .cancelled, "\(ends.recordList)")
            try await harness.run("hf('c2', \(url(two, "?offset=\(2 * part)"))); hf('cc2', \(url(two, "?cancel")));")
            try await harness.waitFor("window.__r.c2 !== undefined && window.__r.cc2 !== undefined")
            #expect(try await harness.isTrue("window.__r.c2.status === 404 && window.__r.cc2.status === 404"))

            // The token of the document before: its download ended with it.
            let three = try await offered(3)
            try await harness.run("hf('d0', \(url(three, "?offset=0")))")
            try await harness.waitFor("window.__r.d0 !== undefined")
            try await harness.load(a.origin + "/next")
            #expect(await eventually { ends.recordList.count == 3 })
            #expect(ends.recordList.last?.outcome == .cancelled, "\(ends.recordList)")
            try await harness.run("hf('d1', \(url(three, "?offset=\(part)"))); hf('dc', \(url(three, "?cancel")));")
            try await harness.waitFor("window.__r.d1 !== undefined && window.__r.dc !== undefined")
            #expect(try await harness.isTrue("window.__r.d1.status === 404 && window.__r.dc.status === 404"))

            #expect(
                await eventually { ends.terminationList.count == 3 }, "every producer ended: \(ends.terminationList)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(ends.recordList.count == 3, "each once: \(ends.recordList)")
            #expect(ends.terminationList.count == 3)
            #expect(transfers.openTransfers == 0)
            #expect(transfers.heldBytes == 0)
            await harness.close()
        }
    }
}
#endif
