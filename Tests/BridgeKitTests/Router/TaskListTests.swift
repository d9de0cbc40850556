import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Feature detection on the native side: ``BridgeRouter/taskList``, the `tasks` message the page
/// gets when tasks change, the document-start script and the user-agent token.
@Suite("Task list (feature detection)")
struct TaskListTests {
    struct Versioned: BridgeTask {
        let name: String
        let version: String?
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    @Test(
        "taskList has every registered task with its version; replace and remove change it; revision grows per change")
    func listFollowsRegistrations() throws {
        let router = try makeRouter([echoTask])
        let start = router.taskList
        #expect(start.tasks == ["echo": String?.none])
        #expect(start.version(of: "echo") == nil)
        try router.register(Versioned(name: "Cart.add", version: "2.1"))
        var list = router.taskList
        #expect(list.names == ["Cart.add", "echo"])
        #expect(list.version(of: "Cart.add") == "2.1")
        #expect(list.contains("echo") && !list.contains("Scan"))
        #expect(list.revision == start.revision + 1)
        _ = router.replace(Versioned(name: "Cart.add", version: "3"))
        #expect(router.taskList.version(of: "Cart.add") == "3")
        #expect(router.taskList.revision == start.revision + 2)
        #expect(router.removeTask(named: "echo"))
        list = router.taskList
        #expect(list.names == ["Cart.add"])
        #expect(list.revision == start.revision + 3)
        #expect(!router.removeTask(named: "echo"))
        #expect(throws: TaskRegistrationError.self) { try router.register(Versioned(name: "Cart.add", version: nil)) }
        #expect(router.taskList == list, "a failed removal or registration changes nothing")
    }

    @Test("The tasks message is exactly the fixture tasks.json; the document-start script delivers it to _receive")
    func messageMatchesFixture() throws {
        let fixture = try #require(FixtureTests.fixtures.first { $0.file == "tasks.json" })
        let list = BridgeTaskList(tasks: ["Alert": "1", "Cart.add": "2.1", "Echo": nil], revision: 2)
        #expect(try BridgeJSON.decode(JSONValue.self, from: list.message) == fixture.message)
        #expect(list.documentStartScript == PageScript.build(calling: .receive, json: list.message))
        #expect(list.documentStartScript.contains("b._receive(m)"))
        #expect(list.documentStartScript.contains(#""Echo":null"#))
    }

    @Test(
        "The connected page gets the new list when a task is registered, replaced or removed; not for a change that failed"
    )
    func pageGetsChanges() async throws {
        let router = try makeRouter([echoTask])
        let page = InMemoryPage(router: router)
        let taskMessages = { page.messages.filter { $0["kind"] == "tasks" } }
        // Deliveries may overtake each other; the page keeps the highest revision.
        let newest = { taskMessages().max { ($0.int("revision") ?? 0) < ($1.int("revision") ?? 0) } }
        #expect(taskMessages().isEmpty)
        try router.register(Versioned(name: "Scan", version: "1"))
        #expect(await eventually { taskMessages().count == 1 })
        let first = try #require(taskMessages().first)
        #expect(first["tasks"] == ["echo": nil, "Scan": "1"])
        #expect(first["revision"] == .int(Int64(router.taskList.revision)))
        #expect(router.removeTask(named: "Scan"))
        #expect(await eventually { taskMessages().count == 2 })
        #expect(newest()?["tasks"] == ["echo": nil])
        #expect(!router.removeTask(named: "Scan"))
        _ = router.replace(Versioned(name: "echo", version: "2"))
        #expect(await eventually { taskMessages().count == 3 })
        #expect(newest()?["tasks"] == ["echo": "2"])
        try? await Task.sleep(for: .milliseconds(50))
        #expect(taskMessages().count == 3, "the failed removal sent nothing")
    }

    @Test("Observers get each new list in order until removed")
    func observers() throws {
        let router = try makeRouter()
        let seen = Mutex<[[String]]>([])
        let id = router.addTaskListObserver { list in seen.withLock { $0.append(list.names) } }
        try router.register(Versioned(name: "A", version: nil))
        try router.register(Versioned(name: "B", version: nil))
        _ = router.removeTask(named: "A")
        router.removeTaskListObserver(id)
        try router.register(Versioned(name: "C", version: nil))
        #expect(seen.withLock { $0 } == [["A"], ["A", "B"], ["B"]])
    }

    @Test("The user-agent token lists names and versions, sorted, and leaves out what would break it")
    func userAgentToken() throws {
        let list = BridgeTaskList(tasks: [
            "Echo": nil, "Alert": "1", "Cart.add": "2.1", "bad name": nil, "x/y": "1",
            "Ünï": nil, "Odd": "1 2", "(b)": nil, "[c]": "1",
        ])
        let token = ApplicationToken.bridgeTasks(list)
        #expect(token.text == "bridge-tasks (Alert/1 Cart.add/2.1 Echo Odd [c]/1)")
        #expect(ApplicationToken.bridgeTasks(BridgeTaskList(tasks: [:])).text == "bridge-tasks ()")
        let agent = UserAgent.appending(token, to: "Mozilla/5.0 AppleWebKit/605.1.15")
        #expect(agent == "Mozilla/5.0 AppleWebKit/605.1.15 bridge-tasks (Alert/1 Cart.add/2.1 Echo Odd [c]/1)")
        let combined = try ApplicationToken("ShopApp/2.1 " + token.text)
        #expect(
            UserAgentPolicy.appending(combined).effectiveUserAgent(standard: "Mozilla/5.0").hasSuffix(
                "ShopApp/2.1 bridge-tasks (Alert/1 Cart.add/2.1 Echo Odd [c]/1)"))
    }
}
