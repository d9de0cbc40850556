#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// `WebKitGTKBridgeHost.binaryTransfers` set after `attach()` (found by a new user: it was
    /// ignored without a word, and the page's binary values failed `unavailable` with "Load
    /// failed"); set to `nil` later, the view's byte requests are no longer served.
    @MainActor
    @Suite("Binary values: transfers set after attach")
    struct BinaryLateTransfers {
        @Test(
            "transfers set after attach() serve the page's binary values from then on; nil stops them",
            .timeLimit(.minutes(1)))
        func setAfterAttach() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: Binary.page)
            let harness = try E2EHarness(allowing: [server.origin])
            let transfers = BinaryTransfers(router: harness.router, limits: BinaryLimits(requestWait: 2, claimWait: 5))
            try harness.router.register(
                ClosureTask(name: "Make") { (count: Int, context: CallContext) -> JSONValue in
                    let binary = try await transfers.send(Data((0..<count).map { UInt8($0 % 251) }), context: context)
                    return ["file": try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(binary))]
                })
            try await harness.load(server.origin + "/")
            let check =
                "function (k, n) { var s = window.__settled[k]; return s && s.ok && s.data.file instanceof Uint8Array && s.data.file.length === n && s.data.file[n - 1] === (n - 1) % 251; }"
            harness.host.binaryTransfers = transfers
            try await harness.run("window.__check = \(check); e2eCall('late', 'Make', 1000);")
            try await harness.waitForSettled(["late"])
            let late = try await harness.outcome("late")
            #expect(try await harness.isTrue("window.__check('late', 1000)"), "\(late.code ?? "ok")")
            harness.host.binaryTransfers = nil
            try await harness.run("e2eCall('off', 'Make', 10);")
            try await harness.waitForSettled(["off"])
            let off = try await harness.outcome("off")
            #expect(!off.ok && off.code == "unavailable", "\(off)")
            #expect(off.message?.contains("BinaryTransfers") == true, "the page's error names the fix: \(off)")
            await harness.close()
        }
    }
}
#endif
