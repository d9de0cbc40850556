#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Kind of fault: a page that cannot learn what changed. `WebKitGTKBridgeHost.binaryTransfers`
    /// may be replaced after `attach()`; the shim kept the part size of the last 200 answer for the
    /// whole document, and the 413 `part_too_large` answer carried none, so after a swap to a
    /// smaller part size every value between the two sizes failed `payload_too_large`, retries
    /// included, until a small value happened to bring a 200 (found by attacking the byte
    /// transport). The 413 answer now tells the part size: the values already on their way fail,
    /// the document's next ones go in parts that fit.
    @MainActor
    @Suite("Binary values: transfers swapped for a smaller part size")
    struct BinaryPartSizeSwap {
        struct SaveOptions: Decodable, Sendable { var file: BridgeBinary }

        @Test(
            "after a swap to a smaller part size the values on their way fail payload_too_large, the next ones arrive whole",
            .timeLimit(.minutes(1)))
        func smallerPartSizeAfterSwap() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(chunkBytes: 256 << 10, requestWait: 2, claimWait: 5))
            defer { scene.stop() }
            let harness = scene.harness
            let smaller = BinaryTransfers(
                router: harness.router, limits: BinaryLimits(chunkBytes: 64 << 10, requestWait: 2, claimWait: 5))
            try harness.router.register(
                ClosureTask(name: "Save2") { (options: SaveOptions, context: CallContext) -> Int in
                    var bytes = 0
                    for try await chunk in try smaller.upload(of: options.file, context: context) {
                        bytes += chunk.count
                    }
                    return bytes
                })
            try await scene.load()
            // The document learns the 256 KiB part size from its first upload's answers.
            try await harness.run("e2eCall('learn', 'Save', {file: pattern(300000)});")
            try await harness.waitForSettled(["learn"])
            let learn = try await harness.outcome("learn")
            #expect(learn.ok && learn.data?["bytes"] == .int(300_000), "\(learn)")
            harness.host.binaryTransfers = smaller
            try await harness.run("e2eCall('whole', 'Save2', {file: pattern(200000)});")
            try await harness.waitForSettled(["whole"])
            let whole = try await harness.outcome("whole")
            #expect(!whole.ok && whole.code == "payload_too_large", "sent whole at the old size: \(whole)")
            for (key, n) in [("retry", 200_000), ("big", 600_000)] {
                try await harness.run("e2eCall('\(key)', 'Save2', {file: pattern(\(n))});")
                try await harness.waitForSettled([key])
                let outcome = try await harness.outcome(key)
                #expect(outcome.ok && outcome.data == .int(Int64(n)), "\(key): \(outcome)")
            }
            smaller.close()
            await harness.close()
        }
    }
}
#endif
