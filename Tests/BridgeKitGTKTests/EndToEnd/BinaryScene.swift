#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The setup the binary end-to-end suites share (``Binary``, ``BinaryAttack``, ``BinaryParts``):
    /// the page's loopback server `a`, serving ``Binary/page`` at `/` unless a test routes its own;
    /// a second loopback server `b`, another origin, for frames and other documents; and the harness
    /// with the byte transport, the binary tasks (``Binary/harness(_:limits:allowsSubframes:)``) and
    /// its transfer records. Stop it in a `defer`; close the harness at the end of the test.
    @MainActor
    struct BinaryScene {
        /// The page's server (the origin the policy allows).
        let a: LoopbackServer
        /// A server of another origin.
        let b: LoopbackServer
        /// The harness, its page not loaded yet (``load(_:)``).
        let harness: E2EHarness
        /// The transfers' records, in the order they ended.
        let records: Binary.Records

        /// Starts both servers and the harness.
        /// - Parameters:
        ///   - limits: the byte transport's limits (short waits by default, as ``Binary/harness(_:limits:allowsSubframes:)``).
        ///   - allowsSubframes: whether the policy admits calls from `a`'s subframes.
        init(limits: BinaryLimits = BinaryLimits(requestWait: 2, claimWait: 5), allowsSubframes: Bool = false) throws {
            let a = try LoopbackServer()
            let b: LoopbackServer
            do { b = try LoopbackServer() } catch {
                a.stop()
                throw error
            }
            do {
                a.routes["/"] = .init(body: Binary.page)
                (harness, records) = try Binary.harness(a, limits: limits, allowsSubframes: allowsSubframes)
            } catch {
                a.stop()
                b.stop()
                throw error
            }
            self.a = a
            self.b = b
        }

        /// Loads `path` of the page's server `a`.
        func load(_ path: String = "/") async throws {
            try await harness.load(a.origin + path)
        }

        /// Stops both servers.
        func stop() {
            a.stop()
            b.stop()
        }
    }
}
#endif
