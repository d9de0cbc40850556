import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Testing

private func page(with presenter: any AlertPresenter) throws -> InMemoryPage {
    let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
    try router.register(AlertTask(presenter: presenter))
    return InMemoryPage(router: router)
}

@Suite("Alert task")
struct AlertTaskTests {
    @Test("The chosen button comes back with its index; the presenter saw the request")
    func chosen() async throws {
        let presenter = AutomaticAlertPresenter(rule: .label("Delete"))
        let page = try page(with: presenter)
        let reply = await page.call(
            "Alert", options: ["title": "Remove?", "message": "It's gone for good", "buttons": ["Cancel", "Delete"]])
        #expect(reply["data"] == ["index": 1, "button": "Delete"])
        #expect(
            presenter.presented == [
                AlertRequest(title: "Remove?", message: "It's gone for good", buttons: ["Cancel", "Delete"])
            ])
    }

    @Test("No buttons means one OK button; no options at all is invalid")
    func defaults() async throws {
        let page = try page(with: AutomaticAlertPresenter(rule: .last))
        #expect(await page.call("Alert", options: ["message": "Hi"])["data"] == ["index": 0, "button": "OK"])
        #expect(await page.call("Alert", options: ["buttons": []])["data"]?.string("button") == "OK")
        #expect(await page.call("Alert")["error"]?.string("code") == "invalid_options")
    }

    @Test("Bad options name their path: wrong types, too many buttons, long labels")
    func badOptions() async throws {
        let page = try page(with: AutomaticAlertPresenter())
        #expect(await page.call("Alert", options: ["title": 5])["error"]?["details"]?.string("path") == "title")
        #expect(
            await page.call("Alert", options: ["buttons": ["a", 1]])["error"]?["details"]?.string("path")
                == "buttons[1]")
        let nine: JSONValue = .array((0..<9).map { .string("b\($0)") })
        #expect(await page.call("Alert", options: ["buttons": nine])["error"]?.string("code") == "invalid_options")
        let long: JSONValue = ["buttons": ["ok", .string(String(repeating: "x", count: 201))]]
        #expect(await page.call("Alert", options: long)["error"]?["details"]?.string("path") == "buttons[1]")
    }

    @Test(
        "Texts are limited as the page counts them (JavaScript's length, UTF-16 units), not in graphemes: a label, a title and a message over their limits are invalid_options and never shown"
    )
    func textLimits() async throws {
        let presenter = AutomaticAlertPresenter()
        let page = try page(with: presenter)
        // One grapheme of 100,001 scalars: one Character to Swift, 100,001 units to the page.
        let zalgo = "e" + String(repeating: "\u{301}", count: 100_000)
        let label = await page.call("Alert", options: ["buttons": .array([.string(zalgo)])])
        #expect(label["error"]?["details"]?.string("path") == "buttons[0]", "\(label)")
        let title = await page.call(
            "Alert", options: ["title": .string(String(repeating: "t", count: AlertTask.maxTitleLength + 1))])
        #expect(title["error"]?["details"]?.string("path") == "title", "\(title)")
        let message = await page.call(
            "Alert", options: ["message": .string(String(repeating: "m", count: AlertTask.maxMessageLength + 1))])
        #expect(message["error"]?["details"]?.string("path") == "message", "\(message)")
        #expect(presenter.presented.isEmpty, "nothing over a limit was shown")
        // At the limits exactly: shown.
        let most = await page.call(
            "Alert",
            options: [
                "title": .string(String(repeating: "t", count: AlertTask.maxTitleLength)),
                "message": .string(String(repeating: "m", count: AlertTask.maxMessageLength)),
                "buttons": .array([.string(String(repeating: "b", count: AlertTask.maxLabelLength))]),
            ])
        #expect(most["data"]?.string("button")?.count == AlertTask.maxLabelLength)
    }

    @Test("AutomaticAlertPresenter remembers only its most recent requests, so a page cannot grow the app by calling")
    func presenterMemoryIsBounded() async throws {
        let presenter = AutomaticAlertPresenter()
        let page = try page(with: presenter)
        for index in 0..<(AutomaticAlertPresenter.remembered + 10) {
            _ = await page.call("Alert", options: ["title": .string("t\(index)")])
        }
        #expect(presenter.presented.count == AutomaticAlertPresenter.remembered)
        #expect(presenter.presented.last?.title == "t\(AutomaticAlertPresenter.remembered + 9)")
        #expect(presenter.presented.first?.title == "t10")
    }

    @Test("A presenter answering out of range fails the call instead of crashing")
    func outOfRange() async throws {
        struct Broken: AlertPresenter { func present(_ request: AlertRequest) async throws -> Int { 7 } }
        let page = try page(with: Broken())
        #expect(await page.call("Alert", options: ["buttons": ["a"]])["error"]?.string("code") == "task_failed")
    }
}
