#if WebKitGTK
import BridgeCookies
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on the page glue (title, page state) and on cookie sync from a hostile page.
    @MainActor
    @Suite("Page glue and cookies from a hostile page")
    struct PageGlueAttack {
        /// The bytes a subscription holds unread (`size` of each event), read after the attack
        /// without waiting for more: the tracker is finished first.
        static func keptBytes(
            _ events: AsyncStream<PageEvent>, _ tracker: PageStateTracker, size: @escaping @Sendable (PageEvent) -> Int
        ) async -> Int {
            let kept = Locked(0)
            let reader = Task {
                for await event in events { kept.update { $0 += size(event) } }
            }
            await idle(.milliseconds(300))
            tracker.finish()
            await reader.value
            return kept.value
        }

        @Test(
            "page title: a subscriber that reads slowly keeps at most the page budget of titles (PageStateTracker buffers 64 events of any size)",
            .timeLimit(.minutes(2)))
        func titleFlood() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "titles"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let budget = harness.router.configuration.limits.maxHeldBytes
            // The app subscribed (a window title, a tab strip) and reads when it gets to it.
            let (_, events) = harness.host.page.tracker.subscribe()
            try await harness.run(
                """
                window.__titles = 0;
                (function step() {
                  document.title = window.__titles + 'T'.repeat(8 * 1024 * 1024);
                  window.__titles++;
                  if (window.__titles < 24) { setTimeout(step, 20); }
                })();
                """)
            try await harness.waitFor("window.__titles === 24", timeout: .seconds(60))
            let tracker = harness.host.page.tracker
            #expect(await eventually { (tracker.state.title?.hasPrefix("23") ?? false) })
            let arrived = tracker.state.title?.utf8.count ?? 0
            print("title attack: the last title reached the app with \(arrived) bytes")
            // What the subscription holds, read without waiting for more.
            let kept = await Self.keptBytes(events, tracker) { event in
                if case .titleChanged(let title) = event { return title?.utf8.count ?? 0 }
                return 0
            }
            print("title attack: 24 titles of 8 MiB keep \(kept / 1_048_576) MiB in one subscription")
            #expect(kept <= budget, "one slow subscription keeps \(kept) bytes of titles, budget \(budget)")
            await harness.close()
        }

        @Test(
            "page state: a subscriber that reads slowly keeps at most the page budget of load URLs (a page navigating to huge URLs)",
            .timeLimit(.minutes(2)))
        func urlFlood() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "urls"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let budget = harness.router.configuration.limits.maxHeldBytes
            let (_, events) = harness.host.page.tracker.subscribe()
            // Loads of URLs of 1 to 16 MiB (the server may refuse them). Held in WebKitGTK 2.50: the
            // load-started URI is still the page's own, so none of them reaches the stream.
            for (round, size) in [1, 2, 3, 4, 8, 16, 1, 2].enumerated() {
                let mark = harness.loadEvents.count
                try await harness.run(
                    "location.href = location.origin + '/?r=\(round)&q=' + 'u'.repeat(\(size) * 1024 * 1024 - 64);")
                _ = await eventually(timeout: .seconds(10)) { harness.loadEvents.dropFirst(mark).contains(.started) }
                try await harness.load(server.origin + "/")
            }
            let kept = await Self.keptBytes(events, harness.host.page.tracker) { event in
                switch event {
                case .loadStarted(let url), .loadFinished(let url): url?.absoluteString.utf8.count ?? 0
                default: 0
                }
            }
            print("url attack: 8 huge loads keep \(kept / 1_048_576) MiB in one subscription")
            #expect(kept <= budget, "one slow subscription keeps \(kept) bytes of URLs, budget \(budget)")
            await harness.close()
        }

        @Test(
            "page state: a navigation that never commits (a 404 download started by a cross-origin iframe, a 404 the app's policy ignores) leaves the page on screen not failed",
            .timeLimit(.minutes(1)))
        func uncommittedErrorResponse() async throws {
            let server = try LoopbackServer()
            let other = try LoopbackServer()
            defer {
                server.stop()
                other.stop()
            }
            server.routes["/"] = .init(body: E2EPage.html(title: "healthy"))
            server.routes["/blocked"] = .init(status: 404, body: "no")
            other.routes["/gone"] = .init(
                status: 404, contentType: "application/octet-stream",
                headers: [("Content-Disposition", "attachment; filename=\"x.bin\"")], body: "x")
            other.routes["/ad"] = .init(
                body: "<!doctype html><script>top.location = \(E2EPage.jsLiteral(other.origin + "/gone"));</script>")
            let harness = try E2EHarness(allowing: [server.origin])
            harness.host.page.onPolicyDecision = { request, _ in
                request.kind == .response && request.uri.hasSuffix("/blocked") ? .ignore : .useDefault
            }
            let tracker = harness.host.page.tracker
            try await harness.load(server.origin + "/")
            #expect(await eventually { tracker.state.phase == .finished })
            try await harness.run("window.__sameDocument = true;")

            // A third-party frame sends the top to a 404 download: nothing commits.
            let mark = harness.loadEvents.count
            try await harness.run(
                """
                var f = document.createElement('iframe'); f.src = \(E2EPage.jsLiteral(other.origin + "/ad"));
                document.body.appendChild(f);
                """)
            #expect(await eventually { harness.loadEvents.dropFirst(mark).contains(.started) })
            await idle(.milliseconds(500))
            #expect(!harness.loadEvents.dropFirst(mark).contains(.committed))
            #expect(try await harness.isTrue("window.__sameDocument === true"), "the healthy page is on screen")
            #expect(tracker.state.phase == .finished, "the page on screen is reported as \(tracker.state.phase)")

            // The app's own policy refuses a 404 response: nothing commits either.
            let mark2 = harness.loadEvents.count
            try await harness.run("location.href = '/blocked';")
            #expect(await eventually { harness.loadEvents.dropFirst(mark2).contains(.started) })
            await idle(.milliseconds(500))
            #expect(try await harness.isTrue("window.__sameDocument === true"), "the healthy page is on screen")
            #expect(tracker.state.phase == .finished, "after an ignored response: \(tracker.state.phase)")
            await harness.close()
        }

        @Test(
            "cookies: document.cookie cannot replace an HttpOnly cookie the app pushed, neither in the store nor, after a pull, in the jar",
            .timeLimit(.minutes(1)))
        func pageOverwritesHttpOnly() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let jar = CookieJar()
            try jar.set(
                Cookie(
                    name: "sid", value: "s3cr3t", domain: "127.0.0.1", expires: Date().addingTimeInterval(3600),
                    isHTTPOnly: true))
            let (harness, sync) = try Cookies.open(server, jar: jar)
            _ = try await withDeadline("push") { try await sync.pushJarToStore() }
            try await harness.load(server.origin + "/echo")
            try await harness.run("document.cookie = 'sid=evil; path=/; max-age=3600';")
            try await harness.load(server.origin + "/echo")
            let sent = try await Cookies.serverCookies(harness)
            #expect(sent.contains("sid=s3cr3t"), "the server still gets the app's sid: \(sent)")
            _ = try? await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            let sids = jar.cookies.filter { $0.name == "sid" }
            #expect(sids.map(\.value) == ["s3cr3t"], "the jar keeps the app's HttpOnly sid: \(sids.map(\.value))")
            await harness.close()
        }

        @Test(
            "cookies: a page's document.cookie flood does not make a pull drop the session cookie the web view still has",
            .timeLimit(.minutes(1)))
        func cookieFloodEvictsSession() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let jar = CookieJar()
            let (harness, sync) = try Cookies.open(server, jar: jar)
            try await harness.load(server.origin + "/login")  // sid (HttpOnly) and user
            _ = try await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            #expect(jar.cookies.contains { $0.name == "sid" })
            try await harness.run(
                "for (var i = 0; i < 200; i++) { document.cookie = 'junk' + i + '=x; path=/; max-age=3600'; }")
            let store = GTKWebCookieStore(harness.view.cookies)
            // The page's writes reach the network process's store asynchronously: wait for all of them.
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(20))
            while try await withDeadline("read store", { try await store.allCookies() }).count < 202 {
                guard clock.now < deadline else { throw E2EError.timedOut("the page's 200 cookies in the store") }
                await idle(.milliseconds(20))
            }
            _ = try? await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            let inStore = try await withDeadline("read store") { try await store.allCookies() }
            // The web view keeps sending the session: the page is still logged in.
            try await harness.load(server.origin + "/whoami")
            #expect(
                try await harness.value("document.getElementById('text').textContent", as: String.self) == "user:alice")
            print(
                "cookie flood: the store keeps \(inStore.count) cookies (sid: \(inStore.contains { $0.name == "sid" })); the jar \(jar.cookies.count)"
            )
            #expect(inStore.contains { $0.name == "sid" }, "the web view still has the session")
            #expect(
                jar.cookies.contains { $0.name == "sid" },
                "after the pull the jar (saved for the next launch) lost the session the web view still sends")
            await harness.close()
        }
    }
}
#endif
