#if WebKitGTK
import BridgeKitGTK
import Testing

extension GTKWrapperTests {
    /// `GTKWindow` and the web view's widget, in the test process (GTK on its dedicated thread).
    @MainActor
    @Suite("Window")
    struct Window {
        @Test(
            "a view moves into a window, keeps working there; the view closes first, then the window",
            .timeLimit(.minutes(1)))
        func viewInWindow() async throws {
            let view = try GTKWebView()
            let window = try GTKWindow(title: "test", width: 320, height: 240)
            #expect(window.handle != nil)
            try window.setContent(view)
            #expect(throws: GTKWebViewError.invalidArgument("the window already shows a web view")) {
                try window.setContent(view)
            }
            window.present()
            try loadAndWait(view, html: "<title>in a window</title>", title: "in a window")
            #expect(try await view.evaluateJavaScriptReturningJSON("document.title") == "\"in a window\"")
            #expect(view.widget != nil)

            view.close()
            #expect(view.widget == nil)
            window.close()
            window.close()  // idempotent
            #expect(window.handle == nil)
            #expect(waitUntil { view.finalization.isFinalized }, "the view is freed although it lived in the window")
            finish(view)
        }

        @Test(
            "closing the window first leaves the view open and working; it closes cleanly afterwards",
            .timeLimit(.minutes(1)))
        func windowFirst() async throws {
            let view = try GTKWebView()
            let window = try GTKWindow(title: "window first", width: 320, height: 240)
            try window.setContent(view)
            window.present()
            try loadAndWait(view, html: "<title>before</title>", title: "before")
            window.close()
            #expect(!view.isClosed)
            #expect(try await view.evaluateJavaScriptReturningJSON("document.title") == "\"before\"")
            view.close()
            #expect(waitUntil { view.finalization.isFinalized })
            finish(view)
        }

        @Test(
            "a close request reaches closeRequested() and onCloseRequest; the window stays until close()",
            .timeLimit(.minutes(1)))
        func closeRequests() async throws {
            let window = try GTKWindow(title: "requests")
            var requests = 0
            window.onCloseRequest = { requests += 1 }
            let waiter = Task { @MainActor in await window.closeRequested() }
            await Task.yield()
            window.requestClose()
            await waiter.value
            #expect(requests == 1)
            #expect(window.isCloseRequested)
            #expect(!window.isClosed)
            await window.closeRequested()  // returns at once now
            window.close()
            #expect(window.isClosed)
        }

        @Test("detachFromOffscreenWindow is idempotent and fails after close", .timeLimit(.minutes(1)))
        func detach() throws {
            let view = try GTKWebView()
            let first = try view.detachFromOffscreenWindow()
            #expect(try view.detachFromOffscreenWindow() == first)
            view.close()
            #expect(throws: GTKWebViewError.closed) { try view.detachFromOffscreenWindow() }
            #expect(waitUntil { view.finalization.isFinalized })
            finish(view)
        }
    }
}
#endif
