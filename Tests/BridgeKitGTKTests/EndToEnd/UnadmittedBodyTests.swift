#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import Foundation
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A large body from a sender no policy admits is read only as far as its head
    /// (``JSCValueText/unadmittedHead(of:admits:)``) and refused `forbidden` from it. With the
    /// relay's flow control every post of a flooding page reaches the app, so reading each whole
    /// to refuse it would cost the app the flood's bytes (attack 18).
    @MainActor
    @Suite("A large body from a sender no policy admits", .serialized)
    struct UnadmittedBody {
        /// Loads a page calling `Echo` with 1 MiB of options and returns its outcome and the
        /// largest inbound message the host's tap saw, in bytes.
        static func call(allowed: Bool) async throws -> (PageOutcome, Int) {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "big", body: "big"))
            let largest = Mutex(0)
            let harness = try E2EHarness(
                policy: .origins(allowed ? [OriginPattern(server.origin)] : []),
                messageTap: { message in
                    guard message.direction == .inbound else { return }
                    let count = message.json.utf8.count
                    largest.withLock { $0 = max($0, count) }
                })
            // The harness's WhoAmI admits every origin (its own policy): without it, nothing
            // admits a page the router's policy does not list.
            harness.router.removeTask(named: "WhoAmI")
            try await harness.load(server.origin + "/")
            try await harness.run("e2eCall('big', 'Echo', {s: 'x'.repeat(1048576)});")
            try await harness.waitForSettled(["big"])
            let outcome = try await harness.outcome("big")
            await harness.close()
            return (outcome, largest.withLock { $0 })
        }

        @Test(
            "refused forbidden from its first kilobyte; an admitted sender's body of the same size arrives whole",
            .timeLimit(.minutes(1)))
        func headOnly() async throws {
            let (refused, refusedBytes) = try await Self.call(allowed: false)
            #expect(!refused.ok && refused.code == "forbidden", "\(refused)")
            #expect(refusedBytes <= 4 * JSCValueText.headUnits, "the host read \(refusedBytes) bytes of a refused body")
            let (admitted, admittedBytes) = try await Self.call(allowed: true)
            #expect(admitted.ok, "\(admitted)")
            #expect(admittedBytes > 1_048_576, "control: the admitted body arrived whole (\(admittedBytes) bytes)")
        }
    }
}
#endif
