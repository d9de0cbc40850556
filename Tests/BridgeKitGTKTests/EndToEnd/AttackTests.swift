#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on issue 20's fixes by hostile pages and frames, in real WebKitGTK. Each test
    /// asserts a promise of SECURITY.md; a failing test is a promise an outside party can break.
    @MainActor
    @Suite("Attacks on issue 20's fixes")
    struct Attacks {
        /// `Gate`: runs until the test opens the gate, then replies "done". Any origin, subframes too.
        static func gateTask(_ open: Locked<Bool>, name: String = "Gate") -> some BridgeTask {
            ClosureTask(name: name, policy: .anyOrigin(allowsSubframes: true)) {
                (_: JSONValue, _: CallContext) -> String in
                while !open.value {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return "done"
            }
        }

        /// Script that makes the page's own-frame relay post a document notice `count` times.
        static func forgeDocumentNotices(_ count: Int) -> String {
            """
            for (var i = 0; i < \(count); i++) {
              window.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{"v":1,"kind":"document"}' }));
            }
            """
        }

        // MARK: Forged document notices

        @Test(
            "A page that forges document notices does not start a new page generation on WebKitGTK (no document committed)",
            .timeLimit(.minutes(1)))
        func forgedDocumentNoticeMainFrame() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "forger"))
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Self.gateTask(open))
            }
            try await harness.load(server.origin + "/")
            let generation = harness.router.pageGeneration
            let commits = harness.loadEvents.filter { $0 == .committed }.count
            try await harness.run("window.__sameDocument = true; e2eCall('held', 'Gate', {});")
            #expect(await eventually { harness.traffic.matching(.inbound, "call").contains { $0.task == "Gate" } })

            // The first forged notice is taken for the one a committed document would have sent;
            // the second starts a new page generation although nothing committed.
            try await harness.run(Self.forgeDocumentNotices(2))
            await idle(.milliseconds(300))
            #expect(harness.loadEvents.filter { $0 == .committed }.count == commits, "nothing committed")
            #expect(try await harness.isTrue("window.__sameDocument === true"), "the same document is on screen")
            #expect(harness.router.pageGeneration == generation, "no new page generation without a committed document")
            #expect(
                !harness.traffic.matching(.outbound, "reply").contains { $0.outcome == "navigated" },
                "no call of the document on screen was ended as navigated")

            open.set(true)
            let settled = await harness.becomesTrue("window.__settled.held != null", timeout: .seconds(5))
            #expect(settled, "the call of the document on screen settles (it was stranded: reply not delivered)")
            if settled { #expect(try await harness.outcome("held").data == "done") }
            await harness.close()
        }

        @Test(
            "A hostile main frame (of an origin the policy does not allow) cannot end a cross-origin subframe's call by forging document notices",
            .timeLimit(.minutes(1)))
        func forgedDocumentNoticeStrandsSubframe() async throws {
            let scene = try await HostileParentScene.load()
            defer { scene.stop() }
            let (harness, open) = (scene.harness, scene.open)
            let generation = harness.router.pageGeneration

            try await harness.run(Self.forgeDocumentNotices(2))
            await idle(.milliseconds(300))
            #expect(harness.router.pageGeneration == generation, "no new page generation")
            open.set(true)
            let settled = await harness.becomesTrue("window.__widget != null", timeout: .seconds(5))
            #expect(settled, "the widget's call settles (it was stranded by the main frame's forged notices)")
            if settled {
                #expect(try await harness.isTrue("window.__widget.widget === 'ok' && window.__widget.data === 'done'"))
            }
            await harness.close()
        }

        @Test(
            "A page that forges document notices cannot make the host's native-to-page call throw navigated",
            .timeLimit(.minutes(1)))
        func forgedDocumentNoticeFailsPageCall() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(
                body: E2EPage.html(
                    title: "pagecall",
                    body: """
                        <script>
                        WebBridge.handle('Later', function () { return new Promise(function (resolve) { window.__answer = resolve; }); });
                        </script>
                        """))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let router = harness.router
            let call = Task { () -> String in
                do {
                    _ = try await router.callPage("Later", as: JSONValue.self)
                    return "answered"
                } catch let error as BridgeError {
                    return error.code
                } catch {
                    return "\(error)"
                }
            }
            try await harness.waitFor("typeof window.__answer === 'function'")
            try await harness.run(Self.forgeDocumentNotices(2))
            await idle(.milliseconds(300))
            try await harness.run("window.__answer('yes');")
            let outcome = await call.value
            #expect(outcome == "answered", "the native-to-page call got the page's answer, not \(outcome)")
            await harness.close()
        }

        // MARK: Bodies over the limit that the relay posts anyway

        @Test(
            "A body over maxPayloadBytes in UTF-8 but not in UTF-16 units never leaves the page's process",
            .timeLimit(.minutes(1)))
        func wideBodyCrossesRelay() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "wide"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let limit = harness.router.configuration.limits.maxPayloadBytes
            ProcessMemory.resetPeak()
            let baseline = ProcessMemory.residentBytes
            // 16,000,000 UTF-16 units (under the relay's 16 MiB unit limit), 48 MB of UTF-8.
            try await harness.run(
                """
                var wide = '\\u4e2d'.repeat(16 * 1000 * 1000);
                e2eCall('a', 'Echo', wide); e2eCall('b', 'Echo', wide); e2eCall('c', 'Echo', wide); wide = null;
                """)
            try await harness.waitForSettled(["a", "b", "c"])
            let peak = ProcessMemory.peakResidentBytes
            print("attack: 3 x 16M-unit CJK calls: peak RSS growth \((peak - baseline) / 1_048_576) MiB")
            for key in ["a", "b", "c"] {
                #expect(try await harness.outcome(key).code == "payload_too_large")
            }
            // The relay's oversized form reports the UTF-16 length; a body that crossed is measured in UTF-8.
            let measured = harness.traffic.matching(.inbound, "call").filter { $0.outcome == "payload_too_large" }.map(
                \.bytes)
            print("attack: refused bodies measured at \(measured) bytes")
            #expect(
                measured.allSatisfy { $0 <= 16_000_100 },
                "the bodies were copied into the app (measured in UTF-8: \(measured), limit \(limit))")
            #expect(peak - baseline < 100 * 1_048_576, "no body over the limit was copied into the app")
            await harness.close()
        }
    }

    /// The scene of the attacks on a cross-origin widget's calls: a main frame of an origin the
    /// policy does not allow (served by `attacker`) around a widget of another origin (`victim`)
    /// whose `Gate` call reached native and waits until `open` is set; the widget posts its
    /// outcome to the main frame, which keeps it in `window.__widget`. The policy allows nothing
    /// but the widget's task (any origin, subframes too). Stop it in a `defer`; close the harness.
    @MainActor
    struct HostileParentScene {
        let attacker: LoopbackServer
        let victim: LoopbackServer
        let harness: E2EHarness
        let open: Locked<Bool>

        static func load() async throws -> HostileParentScene {
            let attacker = try LoopbackServer()
            let victim: LoopbackServer
            do { victim = try LoopbackServer() } catch {
                attacker.stop()
                throw error
            }
            victim.routes["/widget"] = .init(
                body: E2EPage.html(
                    title: "widget",
                    body: """
                        <script>
                        e2eCall('w', 'Gate', {}).then(function (v) { parent.postMessage({ widget: 'ok', data: v }, '*'); },
                          function (e) { parent.postMessage({ widget: 'error', code: e && e.code }, '*'); });
                        </script>
                        """))
            attacker.routes["/"] = .init(
                body: E2EPage.html(
                    title: "attacker",
                    body: """
                        <script>
                        window.__widget = null;
                        window.addEventListener('message', function (e) { if (e.data && e.data.widget) { window.__widget = e.data; } });
                        </script>
                        <iframe src="\(victim.origin)/widget"></iframe>
                        """))
            let open = Locked(false)
            let scene: HostileParentScene
            do {
                let harness = try E2EHarness(allowing: []) { router, _ in try router.register(Attacks.gateTask(open)) }
                scene = HostileParentScene(attacker: attacker, victim: victim, harness: harness, open: open)
                try await harness.load(attacker.origin + "/")
            } catch {
                attacker.stop()
                victim.stop()
                throw error
            }
            #expect(
                await eventually { scene.harness.probeGateCalls(scene.harness) >= 1 },
                "the widget's call reached native")
            return scene
        }

        /// Stops both servers.
        func stop() {
            attacker.stop()
            victim.stop()
        }
    }
}

extension E2EHarness {
    /// Whether the page's `expression` becomes true within `timeout`.
    func becomesTrue(_ expression: String, timeout: Duration) async -> Bool {
        do {
            try await waitFor(expression, timeout: timeout, interval: .milliseconds(20))
            return true
        } catch {
            return false
        }
    }

    /// How many `Gate` calls the router accepted.
    func probeGateCalls(_ harness: E2EHarness) -> Int {
        harness.traffic.acceptedCallIDs(task: "Gate").count
    }
}
#endif
