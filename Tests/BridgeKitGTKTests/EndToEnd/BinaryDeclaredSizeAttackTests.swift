#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack (surface: an upload's declared size), end to end: a page writes its own placeholder
    /// with `size` 2^62 and calls a task that reads the value with `BinaryTransfers.data(of:context:)`
    /// (public API, "for small values"). `data(of:)` reserves the declared size before
    /// `upload(of:)` compares it with `maxTransferBytes`; the allocation fails and Foundation
    /// traps: the app's process dies. Expected: the call settles `payload_too_large`.
    @MainActor
    @Suite("Attack: a declared size the app cannot allocate")
    struct BinaryDeclaredSizeAttack {
        @Test(
            "a placeholder declaring 2^62 bytes to a data(of:) task settles payload_too_large", .timeLimit(.minutes(1)))
        func hugeDeclaredSize() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "Collect") { (options: Binary.SaveOptions, context: CallContext) -> Int in
                    try await transfers.data(of: options.file, context: context).count
                })
            try await scene.load()
            try await harness.run(
                """
                function tok() { var b = new Uint8Array(16); crypto.getRandomValues(b); return Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join(''); }
                e2eCall('huge', 'Collect', {file: {'$bridgeBinary': {token: tok(), size: 4611686018427387904}}});
                """)
            try await harness.waitForSettled(["huge"])
            let outcome = try await harness.outcome("huge")
            #expect(!outcome.ok && outcome.code == "payload_too_large", "\(outcome)")
            await harness.close()
        }
    }
}
#endif
