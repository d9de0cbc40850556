import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: any frame of any origin can drive native code.
@Suite("Access policy: main frame and allowed origins only")
struct AccessPolicyTests {
    @Test("R27 subframes and other origins are refused before the task runs; no script is evaluated")
    func r27() async throws {
        let ran = Mutex(0)
        let pay = ClosureTask(name: "pay") { (_: JSONValue, _: CallContext) in
            ran.withLock { $0 += 1 }
            return "paid"
        }
        let router = try makeRouter([pay])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        let allowed = await page.call("pay", options: [:], id: "cb_9")
        #expect(allowed["data"] == "paid")
        let scriptsBefore = page.scripts.count
        let sub = await page.call(
            "pay", options: [:], id: "cb_9b", from: .subframe("https://ads.example.net"), replyHandler: true)
        let evil = await page.call(
            "pay", options: [:], id: "cb_9c", from: .mainFrame("https://evil.example.org"), replyHandler: true)
        #expect(sub["error"]?["details"]?.string("reason") == "subframe")
        #expect(evil["error"]?["details"]?.string("reason") == "origin_not_allowed")
        #expect(ran.withLock { $0 } == 1)
        #expect(page.scripts.count == scriptsBefore)
        #expect(log.all.contains { $0.id == "cb_9b" && $0.outcome == "forbidden" && $0.reason == .refused("subframe") })
        #expect(log.all.contains { $0.id == "cb_9c" && $0.reason == .refused("origin_not_allowed") })
        page.send("pay", id: "silent", from: .mainFrame("https://evil.example.org"))
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.messages(for: "silent").isEmpty, "without a reply path a refused sender gets nothing")
    }

    @Test("A task can opt in to subframes of a given origin; its reply goes back through the reply path")
    func taskOptIn() async throws {
        let widget = ClosureTask(name: "widget", policy: .origins(["https://widgets.example"], allowsSubframes: true)) {
            (_: NoOptions, context: CallContext) in context.source.origin?.description ?? "none"
        }
        let page = InMemoryPage(router: try makeRouter([widget]))
        let reply = await page.call("widget", from: .subframe("https://widgets.example"), replyHandler: true)
        #expect(reply["data"] == "https://widgets.example")
        #expect(page.deliveries.last?.path == .replyHandler)
        let other = await page.call("widget", from: .subframe("https://other.example"), replyHandler: true)
        #expect(other["error"]?.string("code") == "forbidden")
        let mainFrameApp = await page.call("widget", replyHandler: true)
        #expect(mainFrameApp["error"]?.string("code") == "forbidden", "a task policy replaces the router's")
    }

    @Test("The default policy refuses every origin; anyOrigin must be spelled out")
    func defaults() async throws {
        let router = BridgeRouter()
        try router.register(echoTask)
        let page = InMemoryPage(router: router)
        #expect(await page.call("echo", replyHandler: true)["error"]?.string("code") == "forbidden")
        let open = BridgeRouter(configuration: BridgeConfiguration(policy: .anyOrigin()))
        try open.register(echoTask)
        let openPage = InMemoryPage(router: open)
        #expect(await openPage.call("echo", options: 1)["data"] == 1)
        let opaque = await openPage.call(
            "echo", from: MessageSource(origin: nil, isMainFrame: true), replyHandler: true)
        #expect(opaque["error"]?.string("code") == "forbidden", "anyOrigin means any tuple origin, not an opaque one")
        #expect(opaque["error"]?["details"]?.string("reason") == "no_origin")
        #expect(
            await openPage.call("echo", from: .subframe("https://x.example"), replyHandler: true)["error"]?.string(
                "code") == "forbidden")
    }

    @Test("Opaque origins (no origin) are refused with no_origin by every policy unless allowsOpaqueOrigins opts in")
    func opaqueOrigins() throws {
        let opaqueMain = MessageSource(origin: nil, isMainFrame: true)
        let opaqueSub = MessageSource(origin: nil, isMainFrame: false)
        #expect(MessageSource.mainFrame(nil) == opaqueMain && MessageSource.subframe(nil) == opaqueSub)
        let fromURL = SecurityOrigin(url: try #require(URL(string: "https://app.example/page?q=1")))
        #expect(MessageSource.mainFrame(fromURL) == .mainFrame("https://app.example"))
        #expect(MessageSource.subframe(fromURL) == .subframe("https://app.example"))
        for policy in [
            AccessPolicy(), .anyOrigin(), .anyOrigin(allowsSubframes: true),
            .origins(["https://app.example"], allowsSubframes: true),
        ] {
            #expect(!policy.allowsOpaqueOrigins)
            #expect(policy.refusal(for: opaqueMain) == "no_origin")
        }
        #expect(
            AccessPolicy.anyOrigin().refusal(for: .mainFrame("https://app.example")) == nil,
            "a tuple origin still passes anyOrigin")
        let optedIn = AccessPolicy.anyOrigin(allowsOpaqueOrigins: true)
        #expect(optedIn.refusal(for: opaqueMain) == nil)
        #expect(optedIn.refusal(for: opaqueSub) == "subframe", "the frame check still applies")
        #expect(AccessPolicy.anyOrigin(allowsSubframes: true, allowsOpaqueOrigins: true).refusal(for: opaqueSub) == nil)
        let listed = AccessPolicy.origins(["https://app.example"], allowsOpaqueOrigins: true)
        #expect(listed.refusal(for: opaqueMain) == nil)
        #expect(
            listed.refusal(for: .mainFrame("https://other.example")) == "origin_not_allowed",
            "the opt-in widens nothing else")
        #expect(AccessPolicy(origins: .anyOrigin, allowsOpaqueOrigins: true) == optedIn)
        #expect(AccessPolicy(origins: .anyOrigin) != optedIn)
    }

    @Test("Origin patterns: exact scheme, host and port; subdomain wildcards exclude the apex")
    func patterns() {
        let exact = OriginPattern("https://app.example")
        #expect(exact.matches(SecurityOrigin("https://app.example:443")!))
        #expect(!exact.matches(SecurityOrigin("http://app.example")!))
        #expect(!exact.matches(SecurityOrigin("https://app.example:8443")!))
        #expect(!exact.matches(SecurityOrigin("https://app.example.evil.com")!))
        let wild = OriginPattern("https://*.example.com")
        #expect(wild.matches(SecurityOrigin("https://a.b.example.com")!))
        #expect(!wild.matches(SecurityOrigin("https://example.com")!))
        #expect(!wild.matches(SecurityOrigin("https://badexample.com")!))
        #expect(!OriginPattern("not an origin").isValid)
        #expect(
            !OriginPattern("https://*").isValid || !OriginPattern("https://*").matches(SecurityOrigin("https://a.com")!)
        )
        #expect(SecurityOrigin("null") == nil)
        #expect(SecurityOrigin("http://[::1]:8080")?.description == "http://[::1]:8080")
    }
}
