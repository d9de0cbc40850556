#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Downloads a call's last message announces and does not place, in real WebKitGTK: a task
    /// that offered bytes (`BinaryTransfers.send`) and then failed, or returned without the
    /// placeholder. The page never reads them; it gives them back at once, and native frees their
    /// bytes (before, they were held against `maxHeldBytes` until they expired, 60 s later).
    @MainActor
    @Suite("Downloads a reply announces and does not place")
    struct BinaryUnplaced {
        struct Refusal: Error {}

        @Test(
            "an error reply's and a success reply's unplaced downloads are given back at once; the calls settle as their tasks said",
            .timeLimit(.minutes(1)))
        func givenBack() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "OfferThenFail") { (count: Int, context: CallContext) -> String in
                    _ = try await transfers.send(Data(repeating: 3, count: count), context: context)
                    throw Refusal()
                })
            try harness.router.register(
                ClosureTask(name: "OfferUnused") { (count: Int, context: CallContext) -> String in
                    try await transfers.send(Data(repeating: 4, count: count), context: context).token
                })
            try await scene.load()
            let count = 4 << 20
            try await harness.run(
                """
                e2eCall('failed', 'OfferThenFail', \(count));
                e2eCall('unused', 'OfferUnused', \(count));
                """)
            try await harness.waitForSettled(["failed", "unused"])
            #expect(try await harness.outcome("failed").code == "task_failed")
            #expect(try await harness.outcome("unused").ok)
            #expect(
                await eventually(timeout: .seconds(5)) {
                    transfers.heldBytes == 0 && scene.records.list.count == 2
                }, "held \(transfers.heldBytes) bytes; records \(scene.records.list)")
            #expect(scene.records.list.allSatisfy { $0.outcome == .cancelled }, "\(scene.records.list)")
            await harness.close()
        }
    }
}
#endif
