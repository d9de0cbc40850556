#if WebKitGTK
import BridgeKitGTK
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("GLib main loop")
    struct MainLoop {
        @Test("under Swift Testing GTK runs on a dedicated thread, not on the main actor's", .timeLimit(.minutes(1)))
        func dedicatedThreadUnderSwiftTesting() throws {
            try GLibMainLoop.shared.start()
            #expect(GLibMainLoop.shared.isStarted)
            #expect(GLibMainLoop.shared.mode == .dedicatedThread)
            #expect(GLibMainLoop.shared.gtkThreadID != 0)
            #expect(throws: GLibMainLoopError.notOnProcessMainThread) {
                try GLibMainLoop.shared.runUntilComplete { 1 }
            }
            #expect(throws: GLibMainLoopError.notOnProcessMainThread) { try GLibMainLoop.shared.run() }
        }

        @Test(
            "iterate returns at once when the condition holds and false when the timeout passes",
            .timeLimit(.minutes(1)))
        func iterateTimeout() throws {
            try GLibMainLoop.shared.start()
            var checks = 0
            #expect(
                GLibMainLoop.shared.iterate(
                    until: {
                        checks += 1
                        return true
                    }, timeout: .seconds(1)))
            #expect(checks == 1)
            #expect(GLibMainLoop.shared.iterate(until: { false }, timeout: .milliseconds(20)) == false)
        }

        @Test(
            "web view calls awaited from main-actor tests complete, and events arrive without pumping",
            .timeLimit(.minutes(1)))
        func awaitedCallsAndEvents() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var titles: [String?] = []
            view.onTitleChange = { titles.append($0) }
            #expect(try await view.evaluateJavaScriptReturningJSON("6 * 7") == "42")
            try view.loadHTML("<title>no pumping</title>", baseURI: "http://127.0.0.1/")
            // Only await: nobody iterates GLib here, the GTK thread runs it.
            for _ in 0..<2000 where !titles.contains("no pumping") {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(titles.contains("no pumping"))
        }

        @Test(
            "WebKit keeps working after the main actor idles longer than libdispatch keeps a worker thread",
            .timeLimit(.minutes(1)))
        func survivesIdleMainActor() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            #expect(try await view.evaluateJavaScriptReturningJSON("1") == "1")
            // libdispatch retires a worker after about 5 s idle; the main actor then moves to another
            // thread. With GTK on a worker this hung WebKit for good (WebKit's thread-exit cleanup).
            try await Task.sleep(for: .seconds(7))
            #expect(try await view.evaluateJavaScriptReturningJSON("2") == "2")
            try loadAndWait(view, html: "<title>after idle</title>", title: "after idle")
        }
    }
}
#endif
