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

    @Test("A presenter answering out of range fails the call instead of crashing")
    func outOfRange() async throws {
        struct Broken: AlertPresenter { func present(_ request: AlertRequest) async throws -> Int { 7 } }
        let page = try page(with: Broken())
        #expect(await page.call("Alert", options: ["buttons": ["a"]])["error"]?.string("code") == "task_failed")
    }
}
