#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Downloads of bytes native already holds (`send(Data)`) in real WebKitGTK, at sizes around
    /// and over a chunk: exact bytes, one outcome record each with its byte count, the held bytes
    /// given back, cancel and close in the middle of a large one (issue 26's download path).
    @MainActor
    @Suite("Binary downloads of Data")
    struct BinaryDataDownload {
        /// Registers `Fill`: answers `{file}`, `count` bytes of 7 as one `Data` offer.
        static func registerFill(_ harness: E2EHarness) throws {
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "Fill") { (count: Int, context: CallContext) -> JSONValue in
                    let binary = try await transfers.send(Data(repeating: 7, count: count), context: context)
                    return ["file": try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(binary))]
                })
        }

        @Test(
            "Data downloads of 1 B, 4095 B, 4096 B and a chunk + 3 B arrive with their exact bytes, each ending finished once with its byte count, as does a chunk stream; the held bytes are given back",
            .timeLimit(.minutes(1)))
        func exactBytes() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let (harness, records) = (scene.harness, scene.records)
            try await scene.load()
            let sizes = [1, 4095, 4096, 1_048_576 + 3]
            try await harness.run(
                sizes.map { "e2eCall('make\($0)', 'Make', \($0));" }.joined(separator: "\n")
                    + "\ne2eCall('stream', 'Stream', 2);")
            try await harness.waitForSettled(sizes.map { "make\($0)" } + ["stream"])
            for size in sizes {
                #expect(
                    try await harness.isTrue(
                        """
                        (function () { var f = window.__settled.make\(size).data.file;
                          return f instanceof Uint8Array && f.length === \(size) && sum(f) === sum(pattern(\(size))); })()
                        """), "make\(size)")
            }
            #expect(try await harness.isTrue("window.__settled.stream.data.length === 2 * 262144"))
            #expect(await eventually { records.list.count == sizes.count + 1 })
            #expect(records.list.allSatisfy { $0.outcome == .finished })
            #expect(
                records.list.map(\.bytes).sorted() == (sizes + [2 * 262_144]).sorted(),
                "each record counts the bytes written to WebKit")
            #expect(harness.transfers?.heldBytes == 0, "every offer gave its bytes back")
            await harness.close()
        }

        /// A result holding plain `Data` (no `send`): at the top, nested, and from a synchronous task.
        struct Holding: Encodable, Sendable {
            var name: String
            var file: Data
            var parts: [Data]
        }

        @Test(
            "plain Data in a result reaches the page as a Uint8Array with its exact bytes: at the top, nested, from a synchronous task",
            .timeLimit(.minutes(1)))
        func plainData() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            try harness.router.register(
                ClosureTask(name: "Plain") { (count: Int, _: CallContext) in Data(repeating: 7, count: count) })
            try harness.router.register(
                SynchronousClosureTask(name: "PlainSync") { (count: Int, _: CallContext) in
                    Data(repeating: 7, count: count)
                })
            try harness.router.register(
                ClosureTask(name: "Holding") { (_: NoOptions, _: CallContext) in
                    Holding(name: "n", file: Data([1, 2, 3]), parts: [Data([4]), Data()])
                })
            try await scene.load()
            try await harness.run(
                """
                e2eCall('top', 'Plain', 1048579);
                e2eCall('sync', 'PlainSync', 3);
                e2eCall('nested', 'Holding');
                """)
            try await harness.waitForSettled(["top", "sync", "nested"])
            #expect(
                try await harness.isTrue(
                    """
                    (function () { var d = window.__settled.top.data;
                      return d instanceof Uint8Array && d.length === 1048579 && d[0] === 7 && d[1048578] === 7; })()
                    """))
            #expect(
                try await harness.isTrue(
                    "window.__settled.sync.data instanceof Uint8Array && window.__settled.sync.data.join() === '7,7,7'")
            )
            #expect(
                try await harness.isTrue(
                    """
                    (function () { var d = window.__settled.nested.data;
                      return d.name === 'n' && d.file instanceof Uint8Array && d.file.join() === '1,2,3'
                        && d.parts[0] instanceof Uint8Array && d.parts[0].join() === '4'
                        && d.parts[1] instanceof Uint8Array && d.parts[1].length === 0; })()
                    """))
            #expect(await eventually { harness.transfers?.heldBytes == 0 }, "every download was read")
            await harness.close()
        }

        @Test(
            "a 128 MiB Data download cancelled by the page's AbortSignal mid-download ends once, and gives its held bytes back",
            .timeLimit(.minutes(1)))
        func cancelMidDownload() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let (harness, records) = (scene.harness, scene.records)
            try Self.registerFill(harness)
            try await scene.load()
            let size = 128 << 20
            try await harness.run(
                """
                window.__abort = new AbortController();
                e2eCall('cancel', 'Fill', \(size), {signal: window.__abort.signal, onDownloadProgress: function (p) {
                  window.__progress.push(p.loaded); if (window.__progress.length === 1) { window.__abort.abort(); } }});
                """)
            try await harness.waitForSettled(["cancel"])
            #expect(try await harness.outcome("cancel").code == "cancelled")
            #expect(try await harness.isTrue("window.__progress.length >= 1 && window.__progress[0] < \(size)"))
            #expect(await eventually { records.list.count == 1 })
            let record = try #require(records.list.first)
            // The page aborts at its first progress, long before 128 MiB were written.
            #expect(record.outcome == .cancelled, "\(record)")
            #expect(record.bytes > 0 && record.bytes < size, "\(record)")
            #expect(harness.transfers?.heldBytes == 0)
            await idle(.milliseconds(200))
            #expect(records.list.count == 1, "exactly once")
            await harness.close()
        }

        @Test(
            "closing the web view mid-download of a 128 MiB Data ends the download once, cancelled, at the close",
            .timeLimit(.minutes(1)))
        func closeMidDownload() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let (harness, records) = (scene.harness, scene.records)
            try Self.registerFill(harness)
            try await scene.load()
            try await harness.run(
                "e2eCall('close', 'Fill', \(128 << 20), {onDownloadProgress: function (p) { window.__closeProgress = p.loaded; }})"
            )
            try await harness.waitFor("window.__closeProgress > 0")
            let ended = records.list.count
            await harness.close()
            #expect(await eventually { records.list.count == 1 })
            #expect(ended == 0 ? records.list.map(\.outcome) == [.cancelled] : records.list.count == 1)
            #expect(harness.transfers?.heldBytes == 0)
            await idle(.milliseconds(300))
            #expect(records.list.count == 1, "exactly once")
        }
    }
}
#endif
