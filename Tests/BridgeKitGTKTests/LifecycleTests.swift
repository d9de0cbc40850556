#if WebKitGTK
import BridgeKitGTK
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("Lifecycle")
    struct Lifecycle {
        @Test(
            "close() stops every callback, settles pending calls, rejects new ones and frees the view",
            .timeLimit(.minutes(1)))
        func closeStopsEverything() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/slow"] = .init(body: "<title>never seen</title>")
            let view = try GTKWebView()
            let recorder = ViewRecorder(view)
            var messages = 0
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in
                messages += 1
            }
            try view.addUserScript(
                "window.webkit.messageHandlers.webbridge.postMessage('at start')", world: "bridgekit")
            try loadAndWait(view, html: "<title>open</title>", title: "open")
            #expect(waitUntil { messages == 1 })
            let eventsBefore = recorder.loadEvents.count
            let titlesBefore = recorder.titles.count

            try view.load(uri: server.origin + "/slow")
            view.close()
            view.close()  // idempotent
            #expect(view.isClosed)
            settle()
            #expect(recorder.loadEvents.count == eventsBefore)
            #expect(recorder.titles.count == titlesBefore)
            #expect(messages == 1)
            #expect(view.title == nil)
            #expect(throws: GTKWebViewError.closed) { try view.load(uri: server.origin + "/slow") }
            await #expect(throws: GTKWebViewError.closed) { try await view.evaluateJavaScript("1") }
            await #expect(throws: GTKWebViewError.closed) { _ = try await view.cookies.allCookies() }
            #expect(view.unregisterScriptMessageHandler(name: "webbridge") == false)
            #expect(waitUntil { view.finalization.isFinalized })
            finish(view)
        }

        @Test("a call in flight when the view closes settles: with its result or with closed", .timeLimit(.minutes(1)))
        func pendingCallSettlesOnClose() async throws {
            let view = try GTKWebView()
            try loadAndWait(view, html: "<title>pending</title>", title: "pending")
            let call = Task { @MainActor in try await view.evaluateJavaScriptReturningJSON("1 + 1") }
            await Task.yield()
            view.close()
            do {
                #expect(try await call.value == "2", "finished before the close")
            } catch {
                #expect(error as? GTKWebViewError == .closed)
            }
            #expect(view.isClosed)
            #expect(waitUntil { view.finalization.isFinalized })
        }

        @Test(
            "R23 dropping the last reference without close() frees WebKit's view and fires no callback",
            .timeLimit(.minutes(1)))
        func r23DroppedViewIsFreed() throws {
            var view: GTKWebView? = try GTKWebView()
            let finalization = try #require(view?.finalization)
            var messages = 0
            try view?.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in
                messages += 1
            }
            if let view { try loadAndWait(view, html: "<title>dropped</title>", title: "dropped") }
            weak let weakView = view
            view = nil
            #expect(weakView == nil, "signal handlers must not keep the Swift view alive")
            #expect(waitUntil { finalization.isFinalized })
            #expect(messages == 0)
        }
    }
}
#endif
