#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The document notice's `pageshow` listener (js/webbridge-document.js, injected by
    /// WebKitGTKBridgeHost.attach() in the relay's world) and the shim's own (js/webbridge.js)
    /// against synthetic events.
    @MainActor
    @Suite("A page-made pageshow under attack")
    struct ForgedPageshowAttack {
        /// A page-world script that dispatches a synthetic, untrusted `pageshow` with persisted: true.
        static let fakePageshow =
            "window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));"

        @Test(
            "a synthetic pageshow (persisted) in the same document does not start a page generation",
            .timeLimit(.minutes(1)))
        func syntheticPageshowMainFrame() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "forger"))
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await harness.load(server.origin + "/")
            let generation = harness.router.pageGeneration
            let commits = harness.loadEvents.filter { $0 == .committed }.count
            try await harness.run("window.__sameDocument = true; e2eCall('held', 'Gate', {});")
            #expect(await eventually { harness.traffic.matching(.inbound, "call").contains { $0.task == "Gate" } })

            try await harness.run(Self.fakePageshow)
            await idle(.milliseconds(300))
            #expect(harness.loadEvents.filter { $0 == .committed }.count == commits, "nothing committed")
            #expect(try await harness.isTrue("window.__sameDocument === true"), "the same document is on screen")
            print("forged pageshow: generation \(generation) -> \(harness.router.pageGeneration)")
            #expect(harness.router.pageGeneration == generation, "no new page generation without a new document")
            #expect(
                !harness.traffic.matching(.outbound, "reply").contains { $0.outcome == "navigated" },
                "no call of the document on screen was ended as navigated")
            #expect(try await harness.isTrue("window.__settled.held == null"), "the page's own call is still pending")
            open.set(true)
            try await harness.waitForSettled(["held"])
            let held = try await harness.outcome("held")
            print("forged pageshow: the page's own call \(held.ok ? "ok" : held.code ?? "?")")
            #expect(held.ok && held.data == .string("done"), "the page's own call gets its answer")
            await harness.close()
        }

        @Test(
            "a hostile main frame cannot end a cross-origin subframe's call with a synthetic pageshow",
            .timeLimit(.minutes(1)))
        func syntheticPageshowStrandsSubframe() async throws {
            let scene = try await HostileParentScene.load()
            defer { scene.stop() }
            let (harness, open) = (scene.harness, scene.open)
            let generation = harness.router.pageGeneration

            try await harness.run(Self.fakePageshow)
            await idle(.milliseconds(300))
            print("forged pageshow, subframe: generation \(generation) -> \(harness.router.pageGeneration)")
            #expect(harness.router.pageGeneration == generation, "no new page generation")
            open.set(true)
            let settled = await harness.becomesTrue("window.__widget != null", timeout: .seconds(5))
            let widget = settled ? try await harness.json("window.__widget") : .null
            print("forged pageshow, subframe: widget outcome \(widget)")
            #expect(settled, "the widget's call settles")
            if settled {
                #expect(try await harness.isTrue("window.__widget.widget === 'ok' && window.__widget.data === 'done'"))
            }
            await harness.close()
        }

        @Test(
            "a synthetic pageshow cannot make the host's native-to-page call throw navigated",
            .timeLimit(.minutes(1)))
        func syntheticPageshowFailsPageCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: PageChangeAttack.holdPage)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let done = Locked<String?>(nil)
            let call = PageChangeAttack.startPageCall(harness.router, "Hold", timeout: .seconds(10))
            Task { done.set(await call.value) }
            try await harness.waitFor("window.__held === true")
            // From a same-origin srcdoc subframe, on the main frame's window.
            try await harness.run(
                """
                var f = document.createElement('iframe');
                f.srcdoc = "<script>parent.dispatchEvent(new parent.PageTransitionEvent('pageshow', { persisted: true }));<\\/script>";
                document.body.appendChild(f);
                """)
            await idle(.milliseconds(500))
            print("forged pageshow: page call after subframe's synthetic pageshow: \(done.value ?? "pending")")
            #expect(done.value == nil, "the native call to the document on screen ended: \(done.value ?? "")")
            await harness.close()
        }
    }
}
#endif
