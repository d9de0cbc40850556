#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Title, progress, error statuses and the user agent of a bridged page.
    @MainActor
    @Suite("Page glue")
    struct PageGlue {
        /// Records the page events of the host's ``GTKPageObserver`` and the response requests it
        /// passes on (the observer owns the view's callbacks; tests listen on the observer).
        @MainActor
        final class Glue {
            let events = Locked<[PageEvent]>([])
            var responses: [GTKPolicyRequest] = []
            private var reader: Task<Void, Never>?

            init(_ host: WebKitGTKBridgeHost) {
                let stream = host.page.tracker.events()
                reader = Task { [events] in
                    for await event in stream { events.update { $0.append(event) } }
                }
                host.page.onPolicyDecision = { [weak self] request, _ in
                    if request.kind == .response { self?.responses.append(request) }
                    return .useDefault
                }
            }

            var titles: [String?] {
                var titles: [String?] = []
                for case .titleChanged(let title) in events.value { titles.append(title) }
                return titles
            }

            var progress: [Double] {
                var values: [Double] = []
                for case .progressChanged(let value) in events.value { values.append(value) }
                return values
            }

            var errors: [PageLoadError] {
                var errors: [PageLoadError] = []
                for case .loadFailed(let error) in events.value { errors.append(error) }
                return errors
            }

            func stop() {
                reader?.cancel()
            }
        }

        @Test("title and load progress reach the host's page observer; progress ends at 1.0", .timeLimit(.minutes(1)))
        func titleAndProgress() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/titled"] = .init(body: E2EPage.html(title: "Orders – 7 ✓"))
            let harness = try E2EHarness(allowing: [server.origin])
            let glue = Glue(harness.host)
            defer { glue.stop() }
            try await harness.load(server.origin + "/titled")
            #expect(await eventually { glue.titles.last == "Orders – 7 ✓" })
            #expect(harness.view.title == "Orders – 7 ✓")
            let tracker = harness.host.page.tracker
            #expect(await eventually { !tracker.state.isLoading })
            #expect(tracker.state.title == "Orders – 7 ✓")
            #expect(tracker.state.estimatedProgress == 1.0)
            #expect(tracker.state.phase == .finished)
            #expect(harness.view.estimatedProgress == 1.0, "WebKit's own progress ended at 1.0")
            let progress = glue.progress
            #expect(!progress.isEmpty)
            #expect(progress == progress.sorted(), "progress never goes down within a load")
            #expect(progress.allSatisfy { (0.0...1.0).contains($0) })
            // The page changes its title: the observer follows.
            try await harness.run("document.title = 'changed'")
            #expect(await eventually { glue.titles.last == "changed" })
            #expect(tracker.state.title == "changed")
            // The bridge works on the same page (the host's load hook coexists with the observer).
            try await harness.run("e2eCall('x', 'Echo', 'ok')")
            try await harness.waitForSettled(["x"])
            #expect(try await harness.outcome("x").data == "ok")
            await harness.close()
        }

        @Test(
            "a 404 main-frame response is a page error (NavigationResponsePolicy); a 404 iframe and a 200 page are not",
            .timeLimit(.minutes(1)))
        func notFoundIsAnError() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/ok"] = .init(
                body: E2EPage.html(title: "ok", body: "<iframe src=\"/missing-frame\"></iframe>"))
            let harness = try E2EHarness(allowing: [server.origin])
            let glue = Glue(harness.host)
            defer { glue.stop() }
            let tracker = harness.host.page.tracker
            try await harness.load(server.origin + "/ok")
            #expect(await eventually { glue.responses.count == 2 })
            #expect(glue.responses.map(\.statusCode) == [200, 404])
            #expect(glue.responses.map(\.isMainFrame) == [true, false])
            await idle(.milliseconds(100))
            #expect(glue.errors.isEmpty, "the iframe's 404 is not the page's error")
            #expect(tracker.state.phase == .finished)

            try await harness.load(server.origin + "/missing")
            let url = try #require(URL(string: server.origin + "/missing"))
            #expect(await eventually { !glue.errors.isEmpty })
            #expect(glue.errors == [.httpStatus(code: 404, url: url)])
            #expect(tracker.state.phase == .failed(.httpStatus(code: 404, url: url)))
            #expect(glue.responses.last?.statusCode == 404)
            // The next good load clears it.
            try await harness.load(server.origin + "/ok")
            #expect(await eventually { tracker.state.phase == .finished })
            await harness.close()
        }

        @Test(
            "a refused connection is a load failure of the page; the bridge works on the next page",
            .timeLimit(.minutes(1)))
        func refusedConnectionIsAFailure() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/back"] = .init(body: E2EPage.html(title: "back"))
            let closed = try LoopbackServer()
            let refusedOrigin = closed.origin
            closed.stop()  // nothing listens there any more
            let harness = try E2EHarness(allowing: [server.origin])
            let glue = Glue(harness.host)
            defer { glue.stop() }
            harness.view.suppressesErrorPages = true
            try harness.view.load(uri: refusedOrigin + "/")
            #expect(await eventually { !glue.errors.isEmpty })
            guard case .loadFailed(_, _, let url, let message)? = glue.errors.first else {
                Issue.record("expected loadFailed, got \(glue.errors)")
                await harness.close()
                return
            }
            #expect(url?.absoluteString.hasPrefix(refusedOrigin) == true)
            #expect(!message.isEmpty)
            try await harness.load(server.origin + "/back")
            try await harness.run("e2eCall('x', 'Echo', 1)")
            try await harness.waitForSettled(["x"])
            #expect(try await harness.outcome("x").ok)
            await harness.close()
        }

        @Test(
            "R45 R47 application token: appended to WebKit's user agent, seen by the server's first request and navigator.userAgent",
            .timeLimit(.minutes(1)))
        func r45UserAgent() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/ua"] = .init(body: E2EPage.html(title: "ua"))
            let plain = try GTKWebView()
            let base = try #require(plain.userAgent)
            plain.close()
            #expect(base.contains("AppleWebKit/"))

            let token = try ApplicationToken(name: "ShopApp", version: "2.1")
            let harness = try E2EHarness(allowing: [server.origin], configuration: .appendingToUserAgent(token))
            try await harness.load(server.origin + "/ua")
            let expected = base + " ShopApp/2.1"
            #expect(harness.view.userAgent == expected)
            #expect(server.requests.first?.path == "/ua")
            #expect(server.requests.first?.userAgent == expected, "the very first request carries it")
            #expect(try await harness.value("navigator.userAgent", as: String.self) == expected)
            #expect(expected.hasPrefix(base))
            await harness.close()
        }
    }
}
#endif
