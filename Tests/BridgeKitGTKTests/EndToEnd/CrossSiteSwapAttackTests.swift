#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Cross-site navigations of the main frame (127.0.0.1 → localhost), where an engine may run the
    /// new document in another web process while the old one still runs (WebKitGTK 2.50 here kept
    /// one web process). SECURITY.md: a document keeps its calls until another document really
    /// replaces it; the calls of a replaced document settle `navigated`.
    @MainActor
    @Suite("Attacks across cross-site navigations")
    struct CrossSiteSwapAttack {
        /// `Spy`: records the page generation its call was admitted in, sends a progress value
        /// after 300 ms and replies.
        static func spyTask(_ seen: Locked<[UInt64]>) -> some BridgeTask {
            ClosureTask(name: "Spy") { (_: JSONValue, context: CallContext) -> String in
                seen.update { $0.append(context.pageGeneration) }
                try await Task.sleep(for: .milliseconds(300))
                try await context.progress("progress for A only")
                return "secret for A"
            }
        }

        @Test(
            "A call the old document makes in its pagehide listener (after a 400 ms stall) is ended navigated, never run in the new document's generation",
            .timeLimit(.minutes(1)))
        func pagehideCallOfOldDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            let b = try LoopbackServer()
            defer { b.stop() }
            let bOrigin = "http://localhost:\(b.port)"
            a.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.addEventListener('pagehide', function () {
                          var until = Date.now() + 400; while (Date.now() < until) {}
                          WebBridge.call('Spy', {from: 'A pagehide'}, {onProgress: function () {}});
                        });
                        </script>
                        """))
            b.routes["/b"] = .init(
                body: E2EPage.html(
                    title: "b", head: "<script>e2eCall('early', 'Echo', 'b');</script>",
                    body: "<script>window.__docB = true;</script>"))
            let seen = Locked<[UInt64]>([])
            let harness = try E2EHarness(allowing: [a.origin, bOrigin]) { router, _ in
                try router.register(Self.spyTask(seen))
            }
            try await harness.load(a.origin + "/a")
            try await harness.load(bOrigin + "/b")
            let generationB = harness.router.pageGeneration
            try await harness.waitForSettled(["early"])
            #expect(try await harness.outcome("early").data == "b", "the new document's first call settles")
            #expect(await eventually { !harness.traffic.matching(.outbound, "reply", task: "Spy").isEmpty })
            await idle(.milliseconds(500))
            print("cross-site: Spy admitted in generations \(seen.value); B is generation \(generationB)")
            #expect(seen.value.allSatisfy { $0 < generationB }, "the old document's call ran in B's generation")
            #expect(harness.traffic.matching(.outbound, "reply", task: "Spy").map(\.outcome) == ["navigated"])
            #expect(
                try await harness.isTrue("window.__rx.every(function (m) { return m.kind !== 'progress'; })"),
                "B got the old document's progress")
            await harness.close()
        }
    }
}
#endif
