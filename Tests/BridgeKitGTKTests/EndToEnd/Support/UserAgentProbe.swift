#if WebKitGTK
import BridgeKitGTK

/// The `User-Agent` header a web view sends, read at a loopback server (attacks 14 and 15).
@MainActor
enum UserAgentProbe {
    /// The header of the first request of a view made with `configuration`, or `nil` when
    /// `GTKWebView` refuses the configuration (an application name and version that are not a
    /// `User-Agent` value).
    static func sent(with configuration: GTKWebViewConfiguration) async throws -> String? {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.routes["/"] = .init(body: E2EPage.html(title: "ua"))
        let harness: E2EHarness
        do {
            harness = try E2EHarness(allowing: [server.origin], configuration: configuration)
        } catch GTKWebViewError.invalidArgument {
            return nil
        }
        do {
            try await harness.load(server.origin + "/")
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
        return server.requests.first?.userAgent ?? ""
    }
}
#endif
