#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// `WebBridge.supports` and `WebBridge.tasks()` in real WebKitGTK: the list is there from the
    /// page's first script (injected with the shim), and follows tasks registered and removed later,
    /// in the loaded page and in the next document.
    @MainActor
    @Suite("Feature detection")
    struct FeatureDetection {
        struct Scan: BridgeTask {
            let name = "Scan"
            let version: String? = "2.1"
            func run(_ options: NoOptions, context: CallContext) async throws -> String { "scanned" }
        }

        @Test(
            "WebBridge.supports before and after a task is registered and removed, at document start and live",
            .timeLimit(.minutes(1)))
        func supportsFollowsTasks() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            // The page's first own script reads the list synchronously, before any round trip.
            let head =
                "<script>window.__early = { echo: WebBridge.supports('Echo'), scan: WebBridge.supports('Scan'), list: WebBridge.tasks() };</script>"
            server.routes["/app"] = .init(body: E2EPage.html(title: "app", head: head))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/app")
            #expect(try await harness.value("window.__early.echo", as: Bool.self))
            #expect(try await harness.value("window.__early.scan", as: Bool.self) == false)
            let names = try await harness.value("Object.keys(window.__early.list)", as: [String].self)
            #expect(names == harness.router.taskList.names)

            try harness.router.register(Scan())
            try await harness.waitFor("WebBridge.supports('Scan', '2')")
            #expect(try await harness.value("WebBridge.supports('Scan', '3')", as: Bool.self) == false)
            #expect(try await harness.value("WebBridge.tasks().Scan", as: String.self) == "2.1")
            try await harness.run("e2eCall('scan', 'Scan', null)")
            try await harness.waitForSettled(["scan"])
            #expect(try await harness.outcome("scan").data == "scanned")

            // The next document gets the new list at document start.
            try await harness.load(server.origin + "/app")
            #expect(try await harness.value("window.__early.scan", as: Bool.self))

            #expect(harness.router.removeTask(named: "Scan"))
            try await harness.waitFor("!WebBridge.supports('Scan')")
            try await harness.load(server.origin + "/app")
            #expect(try await harness.value("window.__early.scan", as: Bool.self) == false)
            #expect(try await harness.value("window.__early.echo", as: Bool.self))
            // Mock mode never engages in the app: the relay is a native channel.
            #expect(
                try await harness.value("WebBridge.mock({ Echo: function () { return 'mock'; } })", as: Bool.self)
                    == false)
            await harness.close()
        }
    }
}
#endif
