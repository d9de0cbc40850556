#if WebKitGTK
import BridgeKitGTK
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("Loading, title, progress and policy")
    struct Loading {
        @Test(
            "loading HTML reports started, committed, finished, the title and progress up to 1", .timeLimit(.minutes(1))
        )
        func loadHTMLReportsEvents() throws {
            let view = try GTKWebView()
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            try loadAndWait(view, html: "<title>First page</title><p>hi</p>", title: "First page")
            #expect(waitUntil { recorder.finishedLoads == 1 })
            #expect(recorder.loadEvents == [.started, .committed, .finished])
            // The view's callbacks are queued for the main actor, so they can trail `view.title`.
            #expect(waitUntil { recorder.titles.last == "First page" })
            #expect(waitUntil { recorder.progress.last == 1.0 })
            #expect(view.uri == "http://127.0.0.1/")
            #expect(view.isLoading == false)

            try loadAndWait(view, html: "<title>Second page</title>", title: "Second page")
            #expect(waitUntil { recorder.titles.last == "Second page" })
        }

        @Test("reload loads the document again", .timeLimit(.minutes(1)))
        func reloadLoadsAgain() throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/page"] = .init(body: "<title>served</title>")
            let view = try GTKWebView()
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            try view.load(uri: server.origin + "/page")
            #expect(waitUntil { recorder.finishedLoads == 1 && view.title == "served" })
            view.reload()
            #expect(waitUntil { recorder.finishedLoads == 2 })
            #expect(server.requests.filter { $0.path == "/page" }.count == 2)
        }

        @Test("a response decision exposes URI, HTTP status, MIME type and main-frame flag", .timeLimit(.minutes(1)))
        func responsePolicyShowsStatus() throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/missing"] = .init(status: 404, headers: [("X-Test", "yes")], body: "<title>nf</title>")
            let view = try GTKWebView()
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            view.onPolicyDecision = { request, _ in
                recorder.policyRequests.append(request)
                return .useDefault
            }
            try view.load(uri: server.origin + "/missing")
            #expect(waitUntil { recorder.finishedLoads == 1 })
            let navigation = try #require(recorder.policyRequests.first { $0.kind == .navigation })
            #expect(navigation.uri == server.origin + "/missing")
            #expect(navigation.statusCode == nil)
            let response = try #require(recorder.policyRequests.first { $0.kind == .response })
            #expect(response.uri == server.origin + "/missing")
            #expect(response.statusCode == 404)
            #expect(response.mimeType == "text/html")
            #expect(response.isMainFrame == true)
            #expect(response.headerValues("x-test") == ["yes"])
        }

        @Test("ignoring a navigation blocks it: no load events, the URI stays", .timeLimit(.minutes(1)))
        func ignoredNavigationDoesNotLoad() throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/blocked"] = .init(body: "<title>blocked</title>")
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>start</title>", title: "start")
            let recorder = ViewRecorder(view)
            var asked = 0
            view.onPolicyDecision = { request, _ in
                guard request.kind == .navigation else { return .useDefault }
                asked += 1
                return .ignore
            }
            try view.load(uri: server.origin + "/blocked")
            #expect(waitUntil { asked == 1 })
            settle()
            #expect(recorder.loadEvents.isEmpty)
            #expect(view.title == "start")
            #expect(server.requests.isEmpty)
        }

        @Test("a deferred decision waits until use() and is ignored when dropped undecided", .timeLimit(.minutes(1)))
        func deferredDecision() throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/later"] = .init(body: "<title>later</title>")
            server.routes["/dropped"] = .init(body: "<title>dropped</title>")
            let view = try GTKWebView()
            defer { finish(view) }
            var kept: GTKPolicyDecision?
            view.onPolicyDecision = { request, decision in
                guard request.kind == .navigation else { return .useDefault }
                if request.uri.hasSuffix("/later") { kept = decision }
                return .deferred
            }
            try view.load(uri: server.origin + "/later")
            #expect(waitUntil { kept != nil })
            settle()
            #expect(server.requests.isEmpty, "nothing may load before the deferred decision")
            #expect(kept?.use() == true)
            #expect(kept?.use() == false, "a decision is one-shot")
            #expect(waitUntil { view.title == "later" })

            try view.load(uri: server.origin + "/dropped")
            settle()
            #expect(!server.requests.contains { $0.path == "/dropped" })
            #expect(view.title == "later")
        }

        @Test("a failed load reports URI and message; WebKit's error page can be suppressed", .timeLimit(.minutes(1)))
        func loadFailureReported() throws {
            let closed = try LoopbackServer()
            let deadOrigin = closed.origin
            closed.stop()
            let view = try GTKWebView()
            defer { finish(view) }
            let recorder = ViewRecorder(view)
            view.suppressesErrorPages = true
            try view.load(uri: deadOrigin + "/nothing")
            #expect(waitUntil { recorder.failures.count == 1 && recorder.finishedLoads == 1 })
            let failure = try #require(recorder.failures.first)
            #expect(failure.uri == deadOrigin + "/nothing")
            #expect(failure.event == .started)
            #expect(!failure.message.isEmpty)
            settle()
            #expect(!recorder.loadEvents.contains(.committed), "the error page must not load")
        }
    }
}
#endif
