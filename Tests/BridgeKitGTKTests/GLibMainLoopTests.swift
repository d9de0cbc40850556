#if WebKitGTK
import BridgeKitGTK
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("GLib main loop")
    struct MainLoop {
        @Test("under Swift Testing the main actor is not the process main thread, so GLib is pumped")
        func pumpingModeUnderSwiftTesting() throws {
            try GLibMainLoop.shared.start()
            #expect(GLibMainLoop.shared.isStarted)
            #expect(GLibMainLoop.shared.mode == .pumping)
            #expect(throws: GLibMainLoopError.notOnProcessMainThread) {
                try GLibMainLoop.shared.runUntilComplete { 1 }
            }
        }

        @Test("iterate returns at once when the condition holds and false when the timeout passes")
        func iterateTimeout() throws {
            try GLibMainLoop.shared.start()
            var checks = 0
            #expect(GLibMainLoop.shared.iterate(until: { checks += 1; return true }, timeout: .seconds(1)))
            #expect(checks == 1)
            #expect(GLibMainLoop.shared.iterate(until: { false }, timeout: .milliseconds(20)) == false)
        }

        @Test("a web view call awaited from a main-actor test completes while GLib is pumped")
        func awaitedCallCompletes() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            let result = try await view.evaluateJavaScriptReturningJSON("6 * 7")
            #expect(result == "42")
            let again = try await view.evaluateJavaScriptReturningJSON("'x'.repeat(3)")
            #expect(again == "\"xxx\"")
        }
    }
}
#endif
