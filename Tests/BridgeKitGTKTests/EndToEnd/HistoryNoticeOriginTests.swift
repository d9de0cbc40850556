#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Issue 20, item 6: `pushState` can never change a document's origin, so a `History` notice
    /// whose URL is not http(s) or not same-origin with the frame that sent it is refused
    /// (`invalid_options`, `details.reason`) and logged, and never reaches the host's stream.
    @MainActor
    @Suite("History notices from a hostile page")
    struct HistoryNoticeOrigins {
        @Test(
            "forged History notices (javascript:, file:, data:, a foreign origin, the same host on another port) are refused and logged; real pushState notices arrive",
            .timeLimit(.minutes(1)))
        func forgedNotices() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/"] = .init(body: E2EPage.html(title: "history"))
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/")

            let forged = [
                "javascript:alert(document.cookie)", "file:///etc/passwd", "data:text/html,<b>x</b>",
                "https://bank.example/login", "http://127.0.0.1:1/other-port",
            ]
            let forgedJS = E2EPage.jsExpression(.array(forged.map { .string($0) }))
            try await harness.run(
                """
                \(forgedJS).forEach(function (url) { WebBridge.notify('History', {type: 'pushState', url: url}); });
                e2eCall('called', 'History', {type: 'replaceState', url: 'https://bank.example/account'});
                history.pushState(null, '', '/orders/7');
                """)
            try await harness.waitForSettled(["called"])
            let called = try await harness.outcome("called")
            #expect(!called.ok)
            #expect(called.code == "invalid_options")
            #expect(called.details?.string("reason") == "not_same_origin")
            #expect(called.details?.string("path") == "url")

            // The real notice comes after every forged one (notices start one at a time, in order).
            let arrived = await eventually { !harness.notices.value.isEmpty }
            #expect(arrived)
            await idle(.milliseconds(200))
            #expect(
                harness.notices.value.map(\.url.absoluteString) == [a.origin + "/orders/7"],
                "only the real pushState reached the host")
            // Each forged notice is logged: the router's traffic log has its refusal.
            let refused = harness.traffic.all.filter { $0.task == "History" && $0.outcome == "invalid_options" }
            #expect(refused.count == forged.count + 1, "one refusal per forged notice and one for the call")
            await harness.close()
        }
    }
}
#endif
