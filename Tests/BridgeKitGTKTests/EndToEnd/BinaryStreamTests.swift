#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Binary values the page reads as streams (`binary: "stream"`, issue 26) in real WebKitGTK: a
    /// task's `send(chunks:)` read by the page chunk by chunk, never whole, and every stream ending
    /// exactly once on both sides.
    @MainActor
    @Suite("Binary streams")
    struct BinaryStream {
        /// What ended on the native side: transfer records and the producers' terminations.
        final class Ends: Sendable {
            let records = Mutex<[BinaryTransferRecord]>([])
            let terminations = Mutex<[String]>([])
            var recordList: [BinaryTransferRecord] { records.withLock { $0 } }
            var terminationList: [String] { terminations.withLock { $0 } }
        }

        nonisolated static let chunkBytes = 256 * 1024

        /// A producer of `count` chunks of ``chunkBytes`` (byte `i % 251` in chunk `i`), one every
        /// `pause`, that throws `unavailable` before chunk `failAt`; its termination lands in `ends`.
        nonisolated static func producer(count: Int, pause: Duration, failAt: Int?, ends: Ends)
            -> AsyncThrowingStream<Data, any Error>
        {
            AsyncThrowingStream<Data, any Error> { continuation in
                // The termination handler is set before the producing task starts: a task that
                // finishes first (no pause) would otherwise finish a stream with no handler, and
                // the stream's release would report `.cancelled` instead of how it ended.
                let producing = Mutex<Task<Void, Never>?>(nil)
                continuation.onTermination = { termination in
                    producing.withLock { $0?.cancel() }
                    let name: String
                    switch termination {
                    case .cancelled: name = "cancelled"
                    case .finished(let error): name = error == nil ? "finished" : "failed"
                    @unknown default: name = "unknown"
                    }
                    ends.terminations.withLock { $0.append(name) }
                }
                let task = Task {
                    for i in 0..<count {
                        if Task.isCancelled { return }
                        if i == failAt {
                            continuation.finish(throwing: BridgeError.unavailable("The producer failed."))
                            return
                        }
                        continuation.yield(Data(repeating: UInt8(i % 251), count: chunkBytes))
                        if pause > .zero { try? await Task.sleep(for: pause) }
                    }
                    continuation.finish()
                }
                producing.withLock { $0 = task }
            }
        }

        /// Options of the `Chunks` task.
        struct ChunksOptions: Decodable, Sendable {
            var count: Int
            var pauseMs: Int
            var failAt: Int?
        }

        /// A harness with the task `Chunks` (answers a `send(chunks:)` stream of `count` chunks).
        static func harness(_ server: LoopbackServer, limits: BinaryLimits = BinaryLimits()) throws -> (
            E2EHarness, Ends
        ) {
            let harness = try E2EHarness(
                policy: .origins([OriginPattern(server.origin)]), binaryLimits: limits)
            let ends = Ends()
            let transfers = try #require(harness.transfers)
            transfers.setTransferObserver { record in ends.records.withLock { $0.append(record) } }
            try harness.router.register(
                ClosureTask(name: "Chunks") { (options: ChunksOptions, context: CallContext) -> BridgeBinary in
                    let chunks = Self.producer(
                        count: options.count, pause: .milliseconds(options.pauseMs), failAt: options.failAt, ends: ends)
                    return try await transfers.send(
                        chunks: chunks, size: options.count * chunkBytes, type: "application/octet-stream",
                        context: context)
                })
            return (harness, ends)
        }

        /// `e2eRead(key, options, settings, stopAt, how)`: calls `Chunks` with `binary: "stream"` and
        /// reads the stream into `__streams[key]` (`bytes`, `chunks`, `sumOk`, `ends`, `end`, `code`),
        /// counting bytes, never keeping them; at `stopAt` bytes `how` is `cancel` (reader.cancel()),
        /// `abort` (the call's AbortController) or `hold` (stops reading).
        static let page = E2EPage.html(
            title: "streams",
            head: """
                <script>
                window.__streams = {};
                window.__abort = new AbortController();
                function e2eRead(key, options, settings, stopAt, how) {
                  var s = window.__streams[key] = {bytes: 0, chunks: 0, sumOk: true, ends: 0, end: null, code: null, progress: 0};
                  var all = Object.assign({binary: 'stream', signal: window.__abort.signal,
                    onDownloadProgress: function (p) { s.progress = p.loaded; s.total = p.total; }}, settings || {});
                  WebBridge.call('Chunks', options, all).then(async function (v) {
                    s.size = v.size; s.type = v.type; s.isStream = v.stream instanceof ReadableStream;
                    var reader = v.stream.getReader();
                    reader.closed.then(function () { s.ends++; if (!s.end) { s.end = 'closed'; } },
                      function (e) { s.ends++; s.end = 'error'; s.code = e && e.code; s.isBridgeError = e instanceof WebBridge.WebBridgeError; });
                    try {
                      for (;;) {
                        var step = await reader.read();
                        if (step.done) { break; }
                        var chunk = step.value;
                        var expected = Math.floor(s.bytes / \(chunkBytes)) % 251;
                        if (chunk[0] !== expected || chunk[chunk.length - 1] !== Math.floor((s.bytes + chunk.length - 1) / \(chunkBytes)) % 251) { s.sumOk = false; }
                        s.bytes += chunk.length; s.chunks++;
                        if (stopAt && s.bytes >= stopAt) {
                          if (how === 'cancel') { s.end = 'cancelled'; await reader.cancel('enough'); return; }
                          if (how === 'abort') { window.__abort.abort(); }
                          if (how === 'hold') { s.holding = true; return; }
                        }
                      }
                    } catch (e) { /* reader.closed records it */ }
                  }, function (e) { s.end = 'call-failed'; s.code = e && e.code; });
                }
                </script>
                """)

        @Test(
            "a page reads a send(chunks:) download of 6 MiB as a stream, chunk by chunk, with progress; both sides end once, finished",
            .timeLimit(.minutes(1)))
        func readsWhole() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.page)
            let (harness, ends) = try Self.harness(server)
            try await harness.load(server.origin + "/")
            try await harness.run("e2eRead('all', {count: 24, pauseMs: 0})")
            try await harness.waitFor("window.__streams.all.ends === 1")
            let s = "window.__streams.all"
            #expect(try await harness.value("\(s).end", as: String.self) == "closed")
            #expect(try await harness.value("\(s).bytes", as: Int.self) == 24 * Self.chunkBytes)
            #expect(try await harness.isTrue("\(s).isStream && \(s).size === 24 * 262144"))
            #expect(try await harness.isTrue("\(s).type === 'application/octet-stream'"))
            #expect(try await harness.isTrue("\(s).sumOk"), "every chunk holds its bytes, in order")
            #expect(try await harness.isTrue("\(s).chunks > 1"), "read in chunks")
            #expect(try await harness.isTrue("\(s).progress === 24 * 262144 && \(s).total === 24 * 262144"))
            #expect(try await harness.isTrue("WebBridge.pendingCount() === 0"))
            #expect(await eventually { ends.recordList.count == 1 && ends.terminationList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.finished])
            #expect(ends.recordList.first?.bytes == 24 * Self.chunkBytes)
            #expect(ends.terminationList == ["finished"])
            await harness.close()
        }

        @Test(
            "reader.cancel() and the call's AbortSignal mid-stream abort the download: the native producer sees cancellation, once",
            .timeLimit(.minutes(1)))
        func cancelMidStream() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.page)
            let (harness, ends) = try Self.harness(server)
            try await harness.load(server.origin + "/")

            try await harness.run("e2eRead('cancel', {count: 200, pauseMs: 20}, null, 1048576, 'cancel')")
            try await harness.waitFor("window.__streams.cancel.ends === 1")
            #expect(try await harness.value("window.__streams.cancel.end", as: String.self) == "cancelled")
            #expect(await eventually { ends.recordList.count == 1 && ends.terminationList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.cancelled])
            #expect(ends.terminationList == ["cancelled"], "the producer saw the page's cancel")

            try await harness.run("e2eRead('abort', {count: 200, pauseMs: 20}, null, 1048576, 'abort')")
            try await harness.waitFor("window.__streams.abort.ends === 1")
            let abort = "window.__streams.abort"
            #expect(
                try await harness.isTrue(
                    "\(abort).end === 'error' && \(abort).code === 'cancelled' && \(abort).isBridgeError"))
            #expect(await eventually { ends.recordList.count == 2 && ends.terminationList.count == 2 })
            #expect(ends.recordList.map(\.outcome) == [.cancelled, .cancelled])
            #expect(ends.terminationList == ["cancelled", "cancelled"])
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await harness.value("\(abort).ends", as: Int.self) == 1, "exactly once")
            #expect(ends.recordList.count == 2 && ends.terminationList.count == 2, "exactly once")
            await harness.close()
        }

        @Test(
            "native ending a stream (its producer throws, or the transfers close) errors the page's stream unavailable; the web view closing mid-stream ends the native stream once",
            .timeLimit(.minutes(1)))
        func nativeEndsAndClose() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.page)
            let (harness, ends) = try Self.harness(server)
            try await harness.load(server.origin + "/")

            try await harness.run("e2eRead('fails', {count: 20, pauseMs: 0, failAt: 8})")
            try await harness.waitFor("window.__streams.fails.ends === 1")
            let fails = "window.__streams.fails"
            #expect(try await harness.isTrue("\(fails).end === 'error' && \(fails).code === 'unavailable'"))
            #expect(try await harness.isTrue("\(fails).bytes <= 8 * 262144"))
            #expect(await eventually { ends.recordList.count == 1 && ends.terminationList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.failed("unavailable")])
            #expect(ends.terminationList == ["failed"])

            // The app closes the transfers (its web view is closing) while the page reads.
            try await harness.run("e2eRead('closed', {count: 200, pauseMs: 20})")
            try await harness.waitFor("window.__streams.closed.bytes >= 1048576")
            try #require(harness.transfers).close()
            try await harness.waitFor("window.__streams.closed.ends === 1")
            let closed = "window.__streams.closed"
            let closedEnd = try await harness.value("JSON.stringify(\(closed))", as: String.self)
            #expect(
                try await harness.isTrue("\(closed).end === 'error' && \(closed).code === 'unavailable'"),
                "the page's stream: \(closedEnd)")
            #expect(try await harness.isTrue("\(closed).bytes < 200 * 262144"))
            #expect(await eventually { ends.recordList.count == 2 && ends.terminationList.count == 2 })
            #expect(ends.recordList.last?.outcome == .cancelled)
            #expect(ends.terminationList.last == "cancelled")
            await harness.close()

            // The web view closes while the page reads a stream.
            let (second, secondEnds) = try Self.harness(server)
            try await second.load(server.origin + "/")
            try await second.run("e2eRead('close', {count: 200, pauseMs: 20})")
            try await second.waitFor("window.__streams.close.bytes >= 1048576")
            await second.close()
            #expect(await eventually { secondEnds.recordList.count == 1 && secondEnds.terminationList.count == 1 })
            #expect(secondEnds.recordList.map(\.outcome) == [.cancelled])
            #expect(secondEnds.terminationList == ["cancelled"])
            try await Task.sleep(for: .milliseconds(200))
            #expect(secondEnds.recordList.count == 1 && secondEnds.terminationList.count == 1, "exactly once")
        }

        /// Kind of fault: a download whose source stalls (a `send(chunks:)` producer waiting for
        /// its next chunk) kept native's read waiting for that chunk whatever happened meanwhile:
        /// the page's `reader.cancel()` closed WebKit's end of the body, but native noticed only
        /// when it had a chunk to write, and `close()` did not end the wait either; the producer
        /// ran on (and a thread stayed blocked per such download) until it yielded again, if ever.
        @Test(
            "a stalled producer: reader.cancel() cancels it at once, and close() fails the page's waiting read at once",
            .timeLimit(.minutes(1)))
        func stalledProducer() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.page)
            let (harness, ends) = try Self.harness(server)
            try await harness.load(server.origin + "/")
            let clock = ContinuousClock()

            // One chunk, then the producer waits a minute before the next.
            try await harness.run("e2eRead('cancel', {count: 3, pauseMs: 60000}, null, 262144, 'cancel')")
            try await harness.waitFor("window.__streams.cancel.ends === 1")
            let cancelled = clock.now
            // The producer's termination and the transfer's record come from one end, in either order.
            #expect(
                await eventually(timeout: .seconds(10)) {
                    ends.terminationList.count == 1 && ends.recordList.count == 1
                })
            #expect(clock.now - cancelled < .seconds(12), "at once, not when the producer yields (60 s)")
            #expect(ends.terminationList == ["cancelled"])
            #expect(ends.recordList.map(\.outcome) == [.cancelled])

            try await harness.run("e2eRead('closed', {count: 3, pauseMs: 60000})")
            try await harness.waitFor("window.__streams.closed.bytes >= 262144")
            try await Task.sleep(for: .milliseconds(200))
            let closing = clock.now
            try #require(harness.transfers).close()
            try await harness.waitFor("window.__streams.closed.ends === 1", timeout: .seconds(10))
            #expect(clock.now - closing < .seconds(12), "at once, not when the producer yields (60 s)")
            let closed = "window.__streams.closed"
            let closedEnd = try await harness.value("JSON.stringify(\(closed))", as: String.self)
            #expect(
                try await harness.isTrue("\(closed).end === 'error' && \(closed).code === 'unavailable'"),
                "the page's stream: \(closedEnd)")
            #expect(await eventually(timeout: .seconds(10)) { ends.terminationList.count == 2 })
            #expect(ends.terminationList == ["cancelled", "cancelled"])
            await harness.close()
        }

        @Test(
            "a stream the page never reads: nothing is fetched, native frees the offer when it expires (producer ended once), a late read fails",
            .timeLimit(.minutes(1)))
        func unreadExpires() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Self.page)
            let (harness, ends) = try Self.harness(server, limits: BinaryLimits(offerLifetime: 3))
            try await harness.load(server.origin + "/")
            try await harness.run(
                """
                window.__unread = null;
                WebBridge.call('Chunks', {count: 100, pauseMs: 100}, {binary: 'stream'}).then(function (v) { window.__unread = v; });
                """)
            try await harness.waitFor("window.__unread !== null")
            let transfers = try #require(harness.transfers)
            #expect(transfers.openTransfers == 1)
            #expect(await eventually(timeout: .seconds(10)) { transfers.openTransfers == 0 })
            #expect(await eventually { ends.recordList.count == 1 && ends.terminationList.count == 1 })
            #expect(ends.recordList.map(\.outcome) == [.cancelled])
            #expect(ends.terminationList == ["cancelled"], "the producer is released")
            #expect(transfers.heldBytes == 0)
            try await harness.run(
                """
                window.__late = null;
                window.__unread.stream.getReader().read().then(function () { window.__late = 'read'; },
                  function (e) { window.__late = e.code; });
                """)
            try await harness.waitFor("window.__late !== null")
            #expect(try await harness.value("window.__late", as: String.self) == "unknown_transfer")
            await harness.close()
        }
    }
}
#endif
