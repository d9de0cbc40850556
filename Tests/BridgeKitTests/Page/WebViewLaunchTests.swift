import BridgeKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A web view configurator that records every step and models WebKit's rule that a web view
/// copies its configuration when it is created: the user agent of a load is computed from the
/// application name the view was *created* with (or its custom user agent).
@MainActor
private final class RecordingConfigurator: WebViewConfigurator {
    final class FakeWebView {
        let applicationName: String?
        var customUserAgent: String?
        init(applicationName: String?) { self.applicationName = applicationName }
    }

    static let standard =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"

    var log: [String] = []
    /// What each load would send as `User-Agent`.
    var sentUserAgents: [String] = []

    var applicationNameForUserAgent: String? = "Mobile/15E148" {
        didSet { log.append("applicationName=\(applicationNameForUserAgent ?? "nil")") }
    }

    func makeWebView() -> FakeWebView {
        log.append("makeWebView")
        return FakeWebView(applicationName: applicationNameForUserAgent)
    }

    func setCustomUserAgent(_ userAgent: String, on webView: FakeWebView) {
        log.append("customUserAgent=\(userAgent)")
        webView.customUserAgent = userAgent
    }

    func load(_ request: URLRequest, in webView: FakeWebView) {
        log.append("load \(request.url?.absoluteString ?? "")")
        let sent =
            webView.customUserAgent
            ?? [Self.standard, webView.applicationName].compactMap { $0 }.joined(separator: " ")
        sentUserAgents.append(sent)
    }
}

private struct PrepareFailed: Error {}

@Suite("Page: web view launch")
@MainActor
struct PageWebViewLaunchTests {
    private let startURL = URL(string: "https://shop.example/start")

    /// Kind of fault: the user agent set after loading started (or after an asynchronous read
    /// of `navigator.userAgent`) so the first request carried the default. Whatever the policy
    /// and whatever runs before the first load, the setting precedes the load.
    @Test("R47 the user agent setting is part of the configuration and precedes the first load")
    func r47UserAgentBeforeFirstLoad() async throws {
        let url = try #require(startURL)
        let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"), request: URLRequest(url: url))
        // Computed synchronously, part of the configuration value (the configurator protocol
        // has no way to run JavaScript, so no step can wait for `navigator.userAgent`).
        #expect(launch.userAgent.applicationToken?.text == "ShopApp/2.1")
        #expect(launch.userAgent.applicationName(appendingTo: "Mobile/15E148") == "Mobile/15E148 ShopApp/2.1")

        let configurator = RecordingConfigurator()
        _ = launch.start(with: configurator)
        #expect(
            configurator.log == [
                "applicationName=Mobile/15E148 ShopApp/2.1",
                "makeWebView",
                "load https://shop.example/start",
            ])
        #expect(configurator.sentUserAgents == [RecordingConfigurator.standard + " Mobile/15E148 ShopApp/2.1"])
    }

    @Test(
        "R47 asynchronous work before the first load (cookies, attaching) still runs after the user agent and before the load"
    )
    func r47WithPreparation() async throws {
        let url = try #require(startURL)
        let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"), request: URLRequest(url: url))
        let configurator = RecordingConfigurator()
        _ = try await launch.start(with: configurator) { _ in
            configurator.log.append("prepare begins")
            try await Task.sleep(for: .milliseconds(5))
            await Task.yield()
            configurator.log.append("prepare ends")
        }
        #expect(
            configurator.log == [
                "applicationName=Mobile/15E148 ShopApp/2.1",
                "makeWebView",
                "prepare begins",
                "prepare ends",
                "load https://shop.example/start",
            ])
        #expect(configurator.sentUserAgents.first?.hasSuffix(" ShopApp/2.1") == true)
    }

    @Test("R47 a replacement user agent is set on the view before its first load")
    func r47Replacement() async throws {
        let url = try #require(startURL)
        let launch = WebViewLaunch(
            userAgent: try .replacingEntireUserAgent("Custom/1.0"), request: URLRequest(url: url))
        let configurator = RecordingConfigurator()
        _ = launch.start(with: configurator)
        #expect(configurator.log == ["makeWebView", "customUserAgent=Custom/1.0", "load https://shop.example/start"])
        #expect(configurator.sentUserAgents == ["Custom/1.0"])
    }

    @Test(
        "Setting the application name after creating the view would not reach the first request (the fake models WebKit's copy)"
    )
    func fakeModelsConfigurationCopy() throws {
        let url = try #require(startURL)
        let configurator = RecordingConfigurator()
        let webView = configurator.makeWebView()
        configurator.applicationNameForUserAgent = "Mobile/15E148 ShopApp/2.1"
        configurator.load(URLRequest(url: url), in: webView)
        #expect(configurator.sentUserAgents == [RecordingConfigurator.standard + " Mobile/15E148"])
    }

    @Test("The default policy leaves the configuration alone; a failed preparation loads nothing")
    func defaultAndFailure() async throws {
        let url = try #require(startURL)
        let plain = RecordingConfigurator()
        _ = WebViewLaunch(request: URLRequest(url: url)).start(with: plain)
        #expect(plain.log == ["makeWebView", "load https://shop.example/start"])

        let failing = RecordingConfigurator()
        let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"), request: URLRequest(url: url))
        await #expect(throws: PrepareFailed.self) {
            _ = try await launch.start(with: failing) { _ in throw PrepareFailed() }
        }
        #expect(failing.log == ["applicationName=Mobile/15E148 ShopApp/2.1", "makeWebView"])

        let noRequest = RecordingConfigurator()
        _ = WebViewLaunch(userAgent: try .appending("ShopApp/2.1")).makeWebView(with: noRequest)
        #expect(noRequest.log == ["applicationName=Mobile/15E148 ShopApp/2.1", "makeWebView"])
    }

    @Test("Launching twice with the same configuration does not append the token twice")
    func idempotentApplicationName() async throws {
        let url = try #require(startURL)
        let launch = WebViewLaunch(userAgent: try .appending("ShopApp/2.1"), request: URLRequest(url: url))
        let configurator = RecordingConfigurator()
        _ = launch.start(with: configurator)
        _ = launch.start(with: configurator)
        #expect(configurator.applicationNameForUserAgent == "Mobile/15E148 ShopApp/2.1")
        #expect(Set(configurator.sentUserAgents).count == 1)
    }
}
