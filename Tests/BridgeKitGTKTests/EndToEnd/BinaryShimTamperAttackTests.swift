#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A page that replaces the platform methods the byte transport reads with (fetch's responses,
    /// their body streams and readers, Blobs, typed arrays' length, crypto's random bytes) after the
    /// shim installed. The shim captured them when it installed (SECURITY.md, "Break the shim by
    /// replacing the page's globals"); before, it looked them up at each use, and a reader whose
    /// `read` never settles stranded the call.
    @MainActor
    @Suite("Binary shim with tampered globals")
    struct BinaryShimTamperAttack {
        @Test(
            "binary calls both ways settle with their bytes after the page replaced the platform's methods",
            .timeLimit(.minutes(1)))
        func tamperedPlatformMethods() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                var lengthOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'length').get;
                window.__check = function (v, n) {
                  if (!(v instanceof Uint8Array) || lengthOf.call(v) !== n) { return false; }
                  for (var i = 0; i < n; i++) { if (v[i] !== i % 251) { return false; } }
                  return true;
                };
                var up = new Uint8Array(200000);
                for (var i = 0; i < up.length; i++) { up[i] = i % 7; }
                var never = function () { return new Promise(function () {}); };
                var lie = function () { throw new Error('hostile page'); };
                ReadableStreamDefaultReader.prototype.read = never;
                ReadableStream.prototype.getReader = lie;
                Response.prototype.json = never;
                Response.prototype.arrayBuffer = never;
                Object.defineProperty(Response.prototype, 'body', { get: function () { return null; } });
                Object.defineProperty(Response.prototype, 'ok', { get: function () { return false; } });
                Blob.prototype.slice = lie;
                Blob.prototype.arrayBuffer = never;
                Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'length', { get: function () { return 1; } });
                Crypto.prototype.getRandomValues = function (b) { return b; };
                e2eCall('down', 'Make', 1000);
                e2eCall('up', 'Save', {file: new Blob([up]), other: new Uint8Array([1])});
                """)
            try await harness.waitForSettled(["down", "up"])
            #expect(
                try await harness.isTrue(
                    "window.__settled.down.ok && window.__check(window.__settled.down.data.file, 1000)"))
            let up = try await harness.outcome("up")
            #expect(up.ok, "\(up)")
            #expect(up.data?["bytes"] == 200_000)
            let sum = (0..<200_000).reduce(0) { ($0 + $1 % 7) % 65521 }
            #expect(up.data?["sum"] == .int(Int64(sum)), "the page's bytes, in order")
            await harness.close()
        }
    }
}
#endif
