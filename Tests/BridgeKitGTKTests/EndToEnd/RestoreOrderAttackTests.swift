#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Calls a document makes while the back-forward cache restores it, before the bridge's own
    /// `pageshow` listeners (the shim's, the document notice's) run: in a `visibilitychange`
    /// listener (the document becomes visible before `pageshow`, HTML "reactivate") or a capturing
    /// `pageshow` listener (capturing listeners run first at the target). SECURITY.md: a document
    /// keeps its calls until another document really replaces it; the calls of a replaced document
    /// settle `navigated`, and only those.
    @MainActor
    @Suite("Calls made while a document is restored")
    struct RestoreOrderAttack {
        static let pageA = E2EPage.html(
            title: "a",
            body: """
                <script>
                window.__docA = true; window.__order = [];
                window.addEventListener('pagehide', function () { window.__left = true; });
                document.addEventListener('visibilitychange', function () {
                  window.__order.push('visibility ' + document.visibilityState);
                  if (window.__left && document.visibilityState === 'visible') { e2eCall('visible', 'Gate', {}); }
                });
                window.addEventListener('pageshow', function (e) {
                  window.__order.push('capture pageshow ' + e.persisted);
                  if (e.persisted) { e2eCall('capture', 'Record', {w: 'capture'}); }
                }, true);
                window.addEventListener('pageshow', function (e) {
                  window.__order.push('pageshow ' + e.persisted);
                  if (e.persisted) { e2eCall('after', 'Record', {w: 'after'}); }
                });
                </script>
                """)

        /// Loads A, then B, goes back to A (restored from the back-forward cache) and waits until
        /// A's `pageshow` listener's call settled.
        static func restoreA(_ harness: E2EHarness, _ server: LoopbackServer) async throws {
            try await harness.load(server.origin + "/a")
            try await harness.load(server.origin + "/b")
            try await harness.run("history.back();")
            try await harness.waitFor("window.__docA === true && window.__settled.after != null")
            let order = try await harness.value("window.__order", as: [String].self)
            print("restore: listener order \(order)")
            try #require(order.contains("pageshow true"), "A came back from the back-forward cache")
        }

        @Test(
            "A restored document's call made when it becomes visible again settles with its reply, not navigated",
            .timeLimit(.minutes(1)))
        func visibleCallEndedAsNavigated() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.pageA)
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await Self.restoreA(harness, server)
            try await harness.waitFor("window.__settled.visible !== undefined")
            await idle(.milliseconds(300))
            open.set(true)
            let settled = await harness.becomesTrue("window.__settled.visible != null", timeout: .seconds(5))
            let outcome = settled ? try await harness.outcome("visible") : nil
            let native = harness.traffic.matching(.outbound, "reply", task: "Gate").map { $0.outcome ?? "-" }
            print(
                "restore: visible call: page \(String(describing: outcome?.ok)) \(outcome?.code ?? "-"); native \(native)"
            )
            #expect(
                outcome?.ok == true, "the restored document's call ended \(outcome?.code ?? "unsettled") on the page")
            #expect(native == ["ok"], "native ended the restored document's call: \(native)")
            #expect(try await harness.isTrue("window.__docA === true"), "A stayed on screen")
            await harness.close()
        }

        @Test(
            "A restored document's call made in a capturing pageshow listener settles with the reply native sent",
            .timeLimit(.minutes(1)))
        func captureCallDivergesFromNative() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(body: Self.pageA)
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let open = Locked(true)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await Self.restoreA(harness, server)
            try await harness.waitForSettled(["capture"])
            await idle(.milliseconds(300))
            let page = try await harness.outcome("capture")
            let records = harness.probe.runs(of: "Record").map { "\($0.options)" }
            let native = harness.traffic.matching(.outbound, "reply", task: "Record").map { $0.outcome ?? "-" }
            print(
                "restore: capture call: page ok=\(page.ok) \(page.code ?? "-"); Record ran with \(records); native replies \(native)"
            )
            #expect(
                page.ok,
                "the page was told \(page.code ?? "-") for a call whose task ran and whose reply native sent (\(native))"
            )
            await harness.close()
        }

        @Test(
            "A native-to-page call the app makes when the back-forward cache restore commits is answered by the restored document, not ended navigated",
            .timeLimit(.minutes(1)))
        func nativeCallAtRestoreCommit() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/a"] = .init(
                body: E2EPage.html(
                    title: "a",
                    body: """
                        <script>
                        window.__docA = true; window.__persisted = null;
                        window.addEventListener('pageshow', function (e) { window.__persisted = e.persisted; });
                        WebBridge.handle('Ping', function () { return 'pong from A'; });
                        </script>
                        """))
            server.routes["/b"] = .init(body: E2EPage.html(title: "b"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/a")
            // The app tells each document something as soon as WebKit commits it.
            let router = harness.router
            let calls = Locked<[Task<String, Never>]>([])
            let armed = Locked(false)
            let previous = harness.host.page.onLoadEvent
            harness.host.page.onLoadEvent = { event in
                previous?(event)
                if armed.value, event == .committed {
                    let call = PageChangeAttack.startPageCall(router, "Ping", timeout: .seconds(5))
                    calls.update { $0.append(call) }
                }
            }
            // The outcome depends on a race (the call against the restore's document notice): eight rounds.
            var outcomes: [String] = []
            for _ in 1...8 {
                try await harness.load(server.origin + "/b")
                calls.set([])
                armed.set(true)
                try await harness.run("history.back();")
                try await harness.waitFor("window.__docA === true && window.__persisted === true")
                armed.set(false)
                let made = calls.value
                try #require(made.count == 1, "one commit for the restore")
                outcomes.append(await made[0].value)
                try await harness.run("window.__persisted = null;")
            }
            print("restore: native calls made at the restores' commits: \(outcomes)")
            #expect(
                outcomes.allSatisfy { $0 == "answered:\(JSONValue.string("pong from A"))" },
                "the restored document's native calls ended \(outcomes)")
            await harness.close()
        }
    }
}
#endif
