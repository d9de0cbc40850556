import BridgeKit
import BridgeKitTesting
import Testing

/// A task's stored property named like a ``BridgeTask`` requirement but of another type does not
/// implement the requirement (the protocol extension's default does, silently): registration
/// refuses such a task instead of ignoring what its author declared.
@Suite("Registration: requirements declared with another type are refused, not ignored")
struct TaskDeclarationTests {
    struct WithTimeout: BridgeTask {
        let name = "t"
        let timeout = Duration.milliseconds(100)  // Duration, not Duration?
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    struct WithPolicy: BridgeTask {
        let name = "p"
        let policy = AccessPolicy.origins(["https://admin.example"])  // AccessPolicy, not AccessPolicy?
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    struct WithVersion: BridgeTask {
        let name = "v"
        let version = "2"  // String, not String?
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    struct WithExecution: BridgeTask {
        let name = "e"
        let execution: TaskExecution? = .immediate  // TaskExecution?, not TaskExecution
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    struct Declared: BridgeTask {
        let name = "d"
        let timeout: Duration? = .milliseconds(100)
        let policy: AccessPolicy? = .origins(["https://admin.example"])
        let version: String? = "2"
        let execution: TaskExecution = .immediate
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    struct Defaults: BridgeTask {
        let name = "n"
        let policy: AccessPolicy? = nil
        func run(_ options: NoOptions, context: CallContext) async throws -> NoResult { NoResult() }
    }

    @Test(
        "a stored timeout, policy, version or execution of another type than the requirement's is refused, naming the property and the type to declare"
    )
    func misdeclared() throws {
        let router = BridgeRouter()
        let cases: [(any BridgeTask, String, String)] = [
            (WithTimeout(), "timeout", "Duration?"), (WithPolicy(), "policy", "AccessPolicy?"),
            (WithVersion(), "version", "String?"), (WithExecution(), "execution", "TaskExecution"),
        ]
        for (task, requirement, expected) in cases {
            let error = #expect(throws: TaskRegistrationError.self) { try router.register(task) }
            guard case .misdeclaredRequirement(let name, let property, let type)? = error else {
                Issue.record("\(task.name): \(String(describing: error))")
                continue
            }
            #expect(name == task.name && property == requirement && type == expected)
            #expect("\(error!)".contains("declare it as `\(expected)`"), "\(error!)")
        }
        #expect(router.taskNames.isEmpty)
    }

    @Test("the requirements declared with their own types register, a nil policy too")
    func declared() throws {
        let router = BridgeRouter()
        try router.register(Declared())
        try router.register(Defaults())
        #expect(router.taskNames.sorted() == ["d", "n"])
    }
}

@Suite("ClosureTask with work that returns nothing")
struct VoidClosureTaskTests {
    @Test("a closure returning nothing registers and its call resolves with null")
    func voidBody() async throws {
        let seen = Locked<[String]>([])
        let router = try makeRouter([])
        try router.register(ClosureTask(name: "log") { (line: String, _) in seen.set(seen.value + [line]) })
        try router.register(ClosureTask(name: "two") { (_: NoOptions, _) in 2 })
        let page = InMemoryPage(router: router)
        #expect(await page.call("log", options: "hello")["data"] == .null)
        #expect(seen.value == ["hello"])
        #expect(await page.call("two")["data"] == 2)
    }
}
