import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Foundation
import Testing

@Suite("History task")
struct HistoryTaskTests {
    @Test("R48 notices reach the host's stream in order, as absolute URLs")
    func r48() async throws {
        let history = HistoryTask()
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        try router.register(history)
        let page = InMemoryPage(router: router)
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

    @Test("Malformed notices are refused with invalid_options and never reach the stream")
    func malformed() async throws {
        let history = HistoryTask()
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        try router.register(history)
        let page = InMemoryPage(router: router)
        #expect(await page.call("History", options: ["type": "teleport", "url": "https://a.example/"])["error"]?.string("code") == "invalid_options")
        #expect(await page.call("History", options: ["type": "pushState", "url": "/relative"])["error"]?["details"]?.string("path") == "url")
        #expect(await page.call("History", options: ["type": "pushState", "url": "https://app.example/ok"])["ok"] == true)
        history.finish()
        var count = 0
        for await _ in history.notices { count += 1 }
        #expect(count == 1)
    }
}
