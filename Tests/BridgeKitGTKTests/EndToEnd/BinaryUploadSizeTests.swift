#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Uploads at the edges of the upload rules (empty values, 64 KiB, exactly `partBytes` and one
    /// byte over, views and Blobs) arrive whole.
    @MainActor
    @Suite("Binary uploads at the part-size edges")
    struct BinaryUploadSizes {
        @Test("empty and edge-size uploads succeed", .timeLimit(.minutes(1)))
        func edgeSizes() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(chunkBytes: 100_000, requestWait: 2, claimWait: 5))
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                function mk(n) { var u = new Uint8Array(n); for (var i = 0; i < n; i++) { u[i] = i % 7; } return u; }
                window.__keys = ['b0', 'a0', 'v0', 'k64', 'k64b', 'k64p1', 'pb', 'pbp1', 'pbblob'];
                e2eCall('b0', 'Save', {file: new Blob([])});
                e2eCall('a0', 'Save', {file: new ArrayBuffer(0)});
                e2eCall('v0', 'Save', {file: new Uint8Array(0)});
                e2eCall('k64', 'Save', {file: mk(65536)});
                e2eCall('k64b', 'Save', {file: new Blob([mk(65536)])});
                e2eCall('k64p1', 'Save', {file: mk(65537)});
                setTimeout(function () {
                  e2eCall('pb', 'Save', {file: mk(100000)});
                  e2eCall('pbp1', 'Save', {file: mk(100001)});
                  e2eCall('pbblob', 'Save', {file: new Blob([mk(100000)])});
                }, 500);
                """)
            try await harness.waitForSettled(["b0", "a0", "v0", "k64", "k64b", "k64p1", "pb", "pbp1", "pbblob"])
            var bad: [String: String] = [:]
            for (key, n) in [
                ("b0", 0), ("a0", 0), ("v0", 0), ("k64", 65536), ("k64b", 65536), ("k64p1", 65537), ("pb", 100_000),
                ("pbp1", 100_001), ("pbblob", 100_000),
            ] {
                let o = try await harness.outcome(key)
                print("upload sizes: \(key) \(o)")
                if !o.ok || o.data?["bytes"] != .int(Int64(n)) { bad[key] = "\(o)" }
            }
            #expect(bad.isEmpty, "\(bad)")
            await harness.close()
        }
    }
}
#endif
