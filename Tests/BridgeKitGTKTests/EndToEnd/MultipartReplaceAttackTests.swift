#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Documents that replace the main frame's document as parts of one
    /// `multipart/x-mixed-replace` response: each part is a new document (and window) of the same
    /// load. SECURITY.md: a document keeps its calls until another document really replaces it, and
    /// a reply (or a native-to-page call's answer) never crosses from one document to another.
    @MainActor
    @Suite("Attacks by multipart/x-mixed-replace documents")
    struct MultipartReplaceAttack {
        static let partA = E2EPage.html(
            title: "part a",
            body: """
                <script>
                window.__docA = true; window.__held = false;
                WebBridge.handle('Hold', function () { window.__held = true; return new Promise(function () {}); });
                </script>
                """)
        static let partB = E2EPage.html(
            title: "part b",
            body: """
                <script>
                window.__docB = true;
                WebBridge.handle('Hold', function () { return 'answered by part b'; });
                </script>
                """)

        /// Loads `path` of `server` (a multipart response) without waiting for the load to finish
        /// (it finishes only with the last part), then waits for `expression`.
        static func open(_ harness: E2EHarness, _ uri: String, until expression: String) async throws {
            try harness.view.load(uri: uri)
            try await harness.waitFor(expression)
        }

        static func describe(_ harness: E2EHarness) async -> String {
            let docA = (try? await harness.isTrue("window.__docA === true")) ?? false
            let docB = (try? await harness.isTrue("window.__docB === true")) ?? false
            let bridge =
                (try? await harness.isTrue("typeof window.WebBridge === 'object' && window.WebBridge !== null"))
                ?? false
            return
                "docA=\(docA) docB=\(docB) bridge=\(bridge) generation=\(harness.router.pageGeneration) events=\(harness.loadEvents)"
        }

        @Test(
            "A later part of a multipart/x-mixed-replace response cannot answer a native call made to the part it replaced",
            .timeLimit(.minutes(1)))
        func laterPartAnswersOldNativeCall() async throws {
            let server = try ReplaceServer(multipart: ["/mp": [Self.partA, Self.partB]])
            defer { server.stop() }
            let harness = try E2EHarness(allowing: [server.origin])
            try await Self.open(harness, server.origin + "/mp", until: "window.__docA === true")
            let generationA = harness.router.pageGeneration
            print("multipart attack: part a: \(await Self.describe(harness))")

            let call = PageChangeAttack.startPageCall(harness.router, "Hold")
            try await harness.waitFor("window.__held === true")
            let id = try await harness.value(PageChangeAttack.firstNativeCallID, as: String.self)

            server.nextPart()
            try await harness.waitFor("window.__docB === true")
            await idle(.milliseconds(300))
            print("multipart attack: part b: \(await Self.describe(harness)) (part a's generation \(generationA))")
            try #require(try await harness.isTrue("window.__docA === undefined"), "a new document replaced part a")

            try await harness.run(PageChangeAttack.forgeReply(id, data: "forged by part b"))
            let outcome = await call.value
            #expect(outcome == "navigated", "part a's call got \(outcome) from the part that replaced it")
            await harness.close()
        }

        @Test(
            "A part replaced by the next part of a multipart/x-mixed-replace response loses its page-to-native calls",
            .timeLimit(.minutes(1)))
        func replacedPartKeepsCalls() async throws {
            let server = try ReplaceServer(multipart: [
                "/mp": [
                    E2EPage.html(
                        title: "part a", body: "<script>window.__docA = true; e2eCall('held', 'Gate', {});</script>"),
                    Self.partB,
                ]
            ])
            defer { server.stop() }
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await Self.open(harness, server.origin + "/mp", until: "window.__docA === true")
            #expect(await eventually { harness.probeGateCalls(harness) == 1 })
            let id = try #require(harness.traffic.acceptedCallIDs(task: "Gate").first)

            server.nextPart()
            try await harness.waitFor("window.__docB === true")
            await idle(.milliseconds(300))
            print("multipart attack: part b: \(await Self.describe(harness))")

            open.set(true)
            #expect(await eventually { !harness.traffic.matching(.outbound, "reply", id: id).isEmpty })
            let replies = harness.traffic.matching(.outbound, "reply", id: id)
            print("multipart attack: part a's call after part b: \(replies.map { "\($0.outcome ?? "nil")" })")
            #expect(
                replies.map(\.outcome) == ["navigated"],
                "the replaced part's call was answered as if its document were still there")
            await harness.close()
        }

        @Test(
            "A part of another type (text/plain) that replaces an HTML part ends the HTML part's calls",
            .timeLimit(.minutes(1)))
        func plainTextPartKeepsCalls() async throws {
            let server = try ReplaceServer(multipart: [
                "/mp": [
                    E2EPage.html(
                        title: "part a", body: "<script>window.__docA = true; e2eCall('held', 'Gate', {});</script>"),
                    "@@type=text/plain\nplain text part",
                ]
            ])
            defer { server.stop() }
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Attacks.gateTask(open))
            }
            try await Self.open(harness, server.origin + "/mp", until: "window.__docA === true")
            #expect(await eventually { harness.probeGateCalls(harness) == 1 })
            let id = try #require(harness.traffic.acceptedCallIDs(task: "Gate").first)
            let generationA = harness.router.pageGeneration
            server.nextPart()
            try await harness.waitFor(
                "window.__docA === undefined && document.body && document.body.textContent.indexOf('plain text part') >= 0"
            )
            await idle(.milliseconds(300))
            print(
                "multipart attack: text part: \(await Self.describe(harness)) (part a's generation \(generationA)) contentType=\((try? await harness.value("document.contentType", as: String.self)) ?? "-")"
            )
            open.set(true)
            #expect(await eventually { !harness.traffic.matching(.outbound, "reply", id: id).isEmpty })
            let replies = harness.traffic.matching(.outbound, "reply", id: id)
            print("multipart attack: part a's call after the text part: \(replies.map { "\($0.outcome ?? "nil")" })")
            #expect(
                replies.map(\.outcome) == ["navigated"],
                "the replaced part's call was answered as if its document were still there")
            await harness.close()
        }
    }
}
#endif
