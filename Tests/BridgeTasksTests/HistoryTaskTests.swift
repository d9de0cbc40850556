import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Foundation
import Synchronization
import Testing

@Suite("History task")
struct HistoryTaskTests {
    /// A `HistoryTask` registered on a router that allows `https://app.example`, and its page.
    static func makePage() throws -> (HistoryTask, InMemoryPage) {
        let history = HistoryTask()
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        try router.register(history)
        return (history, InMemoryPage(router: router))
    }

    @Test("R48 notices reach the host's stream in order, as absolute URLs")
    func r48() async throws {
        let (history, page) = try Self.makePage()
        let notices: [JSONValue] = [
            ["type": "pushState", "url": "https://app.example/orders/7"],
            ["type": "replaceState", "url": "https://app.example/orders/7?tab=2"],
            ["type": "popstate", "url": "https://app.example/"],
        ]
        for notice in notices { page.send("History", options: notice, fireAndForget: true) }
        var received: [HistoryNotice] = []
        for await notice in history.notices {
            received.append(notice)
            if received.count == 3 { break }
        }
        #expect(received.map(\.type) == [.pushState, .replaceState, .popstate])
        #expect(received.map(\.url.absoluteString) == notices.compactMap { $0.string("url") })
        #expect(page.deliveries.isEmpty, "notices are fire-and-forget")
    }

    @Test(
        "The page's URL reaches the host as the page has it (href), also where Foundation's URL would percent-encode it (WHATWG URL keeps |, ^, [, ] and a stray %)"
    )
    func hrefAsThePageHasIt() async throws {
        let (history, page) = try Self.makePage()
        let hrefs = [
            "https://app.example/a|b", "https://app.example/q?x=^1", "https://app.example/list[2]",
            "https://app.example/50%off", "https://app.example/ok",
        ]
        for href in hrefs {
            #expect(await page.call("History", options: ["type": "pushState", "url": .string(href)])["ok"] == true)
        }
        history.finish()
        var received: [HistoryNotice] = []
        for await notice in history.notices { received.append(notice) }
        #expect(received.map(\.href) == hrefs)
        #expect(received.map { $0.url.host() } == Array(repeating: "app.example", count: hrefs.count))
    }

    @Test(
        "Notices a page could not have made with pushState are refused and never reach the stream: credentials in the URL, a URL over maxURLLength"
    )
    func credentialsAndLength() async throws {
        let (history, page) = try Self.makePage()
        for (url, reason) in [
            ("https://admin:hunter2@app.example/login", "credentials_not_allowed"),
            ("https://admin@app.example/login", "credentials_not_allowed"),
            (
                "https://app.example/p#" + String(repeating: "h", count: HistoryTask.maxURLLength),
                "url_too_long"
            ),
        ] {
            let reply = await page.call("History", options: ["type": "pushState", "url": .string(url)])
            #expect(reply["error"]?.string("code") == "invalid_options")
            #expect(reply["error"]?["details"]?.string("reason") == reason, "\(url.prefix(60)): \(reply)")
        }
        let longest = "https://app.example/p#" + String(repeating: "h", count: HistoryTask.maxURLLength - 22)
        #expect(longest.utf8.count == HistoryTask.maxURLLength)
        #expect(await page.call("History", options: ["type": "pushState", "url": .string(longest)])["ok"] == true)
        history.finish()
        var received: [String] = []
        for await notice in history.notices { received.append(notice.href) }
        #expect(received == [longest])
    }

    @Test("Malformed notices are refused with invalid_options and never reach the stream")
    func malformed() async throws {
        let (history, page) = try Self.makePage()
        #expect(
            await page.call("History", options: ["type": "teleport", "url": "https://a.example/"])["error"]?.string(
                "code") == "invalid_options")
        #expect(
            await page.call("History", options: ["type": "pushState", "url": "/relative"])["error"]?["details"]?.string(
                "path") == "url")
        #expect(
            await page.call("History", options: ["type": "pushState", "url": "https://app.example/ok"])["ok"] == true)
        history.finish()
        var count = 0
        for await _ in history.notices { count += 1 }
        #expect(count == 1)
    }
}

@Suite("History task: notices a page cannot have made")
struct HistoryNoticeOriginTests {
    static let app = "https://app.example"

    @Test(
        "A notice not http(s) or not same-origin with its sender is refused with invalid_options and never reaches the stream; a notify is dropped and logged"
    )
    func forged() async throws {
        let history = HistoryTask()
        let records = Mutex<[TrafficRecord]>([])
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(Self.app)])))
        router.setTrafficObserver { record in records.withLock { $0.append(record) } }
        try router.register(history)
        let page = InMemoryPage(router: router)
        let cases: [(String, String)] = [
            ("javascript:alert(1)", "scheme_not_allowed"), ("file:///etc/passwd", "scheme_not_allowed"),
            ("data:text/html,x", "scheme_not_allowed"), ("about:blank", "scheme_not_allowed"),
            ("https://evil.example/login", "not_same_origin"), ("http://app.example/", "not_same_origin"),
            ("https://app.example:8443/", "not_same_origin"), ("https://sub.app.example/", "not_same_origin"),
        ]
        for (url, reason) in cases {
            let reply = await page.call("History", options: ["type": "pushState", "url": .string(url)])
            #expect(reply["error"]?.string("code") == "invalid_options", "\(url)")
            #expect(reply["error"]?["details"]?.string("reason") == reason, "\(url)")
            #expect(reply["error"]?["details"]?.string("path") == "url", "\(url)")
            page.send("History", options: ["type": "pushState", "url": .string(url)], fireAndForget: true)
        }
        page.send("History", options: ["type": "pushState", "url": "https://app.example:443/ok"], fireAndForget: true)
        var received: [HistoryNotice] = []
        for await notice in history.notices {
            received.append(notice)
            break
        }
        #expect(
            received.map(\.url.absoluteString) == ["https://app.example:443/ok"],
            "only the same-origin notice, after every forged one")
        let refusedNotices = records.withLock { $0 }.filter {
            $0.task == "History" && $0.id == nil && $0.outcome == "invalid_options"
        }
        #expect(refusedNotices.count == cases.count, "each dropped notice is logged")
    }

    @Test("refusal(url:sender:): same origin with default ports folded; no sender means refused")
    func rule() throws {
        let app = try #require(SecurityOrigin(Self.app))
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "https://APP.example:443/a?b#c")), sender: app) == nil)
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "https://app.example/")), sender: nil)?.details?.string(
                "reason") == "not_same_origin")
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "ftp://app.example/")), sender: app)?.details?.string(
                "reason") == "scheme_not_allowed")
        let local = try #require(SecurityOrigin("http://127.0.0.1:8080"))
        #expect(HistoryTask.refusal(url: try #require(URL(string: "http://127.0.0.1:8080/x")), sender: local) == nil)
        #expect(HistoryTask.refusal(url: try #require(URL(string: "http://127.0.0.1:8081/x")), sender: local) != nil)
    }

    /// Kind of fault: a rule written for one kind of origin. A single-page app served from the app's
    /// own scheme (BridgeKitGTK's `app://bundle`, a `WKURLSchemeHandler`'s scheme) has a tuple
    /// origin, and its `pushState` notices were refused `scheme_not_allowed` (found building the
    /// GTK asset scheme). The sender's own scheme is allowed too; schemes without a tuple origin
    /// never are, whoever sends them.
    @Test(
        "The sender's own scheme (an app's asset scheme) is allowed, same-origin only; javascript:, data:, file:, blob:, about: never"
    )
    func appScheme() throws {
        let bundle = try #require(SecurityOrigin("app://bundle"))
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "app://bundle/settings?tab=2#top")), sender: bundle)
                == nil)
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "app://other/settings")), sender: bundle)?.details?
                .string(
                    "reason") == "not_same_origin")
        let web = try #require(SecurityOrigin(Self.app))
        #expect(
            HistoryTask.refusal(url: try #require(URL(string: "app://bundle/x")), sender: web)?.details?.string(
                "reason") == "scheme_not_allowed")
        for scheme in ["javascript", "data", "file", "blob", "about"] {
            // Even a sender claiming such a scheme (no router admits one: they have no tuple origin).
            let sender = SecurityOrigin(scheme: scheme, host: "bundle")
            #expect(
                HistoryTask.refusal(url: try #require(URL(string: "\(scheme)://bundle/x")), sender: sender)?.details?
                    .string("reason") == "scheme_not_allowed", "\(scheme)")
        }
    }

    @Test("A sender other than the notice's origin (a subframe allowed by the task's policy) is refused too")
    func otherFrame() async throws {
        let history = HistoryTask(
            policy: .origins(["https://app.example", "https://widgets.example"], allowsSubframes: true))
        let router = BridgeRouter()
        try router.register(history)
        let page = InMemoryPage(router: router)
        let reply = await page.call(
            "History", options: ["type": "pushState", "url": "https://app.example/x"],
            from: .subframe("https://widgets.example"), replyHandler: true)
        #expect(reply["error"]?["details"]?.string("reason") == "not_same_origin")
        let own = await page.call(
            "History", options: ["type": "pushState", "url": "https://widgets.example/x"],
            from: .subframe("https://widgets.example"), replyHandler: true)
        #expect(own["ok"] == true)
    }
}
