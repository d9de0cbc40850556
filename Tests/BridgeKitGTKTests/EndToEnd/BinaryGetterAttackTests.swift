#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A page that replaces the getters the shim reads a binary value's size and bytes with
    /// (`%TypedArray%.prototype.buffer`, `Blob.prototype.size`) after it installed: the shim reads
    /// them with the platform's own accessors, so the task gets the page's bytes, all of them.
    @MainActor
    @Suite("Binary value getters replaced by the page")
    struct BinaryGetterAttack {
        @Test(
            "replaced %TypedArray%.prototype.buffer and Blob.prototype.size cannot feed a binary value other bytes",
            .timeLimit(.minutes(1)))
        func replacedGetters() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                var up = new Uint8Array(200000);
                for (var i = 0; i < up.length; i++) { up[i] = i % 7; }
                var blob = new Blob([up]);
                var other = new Uint8Array(200000).buffer;   // all zero
                var proto = Object.getPrototypeOf(Uint8Array.prototype);
                var realBuffer = Object.getOwnPropertyDescriptor(proto, 'buffer').get;
                var realSize = Object.getOwnPropertyDescriptor(Blob.prototype, 'size').get;
                Object.defineProperty(proto, 'buffer', { configurable: true, get: function () { return this === up ? other : realBuffer.call(this); } });
                Object.defineProperty(Blob.prototype, 'size', { configurable: true, get: function () { return this === blob ? 70000 : realSize.call(this); } });
                e2eCall('view', 'Save', {file: up});
                e2eCall('blob', 'Save', {file: blob});
                """)
            try await harness.waitForSettled(["view", "blob"])
            let sum = (0..<200_000).reduce(0) { ($0 + $1 % 7) % 65521 }
            let view = try await harness.outcome("view")
            let blob = try await harness.outcome("blob")
            print("binary getters: view \(view) blob \(blob) expected sum \(sum)")
            #expect(
                !(view.ok && view.data?["sum"] != .int(Int64(sum))),
                "the view's call succeeded with other bytes: \(view)")
            #expect(!(blob.ok && blob.data?["bytes"] != 200_000), "the Blob's call succeeded with other bytes: \(blob)")
            await harness.close()
        }
    }
}
#endif
