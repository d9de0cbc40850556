import BridgeKit
import Testing

/// A user script: an object with a source, like `WKUserScript`.
private final class FakeScript {
    let source: String
    init(_ source: String) { self.source = source }
}

/// A content controller that keeps scripts in order and can only remove all of them, like
/// `WKUserContentController`; `copiesScripts` makes `userScripts` hand back copies.
@MainActor
private final class FakeController: UserScriptController {
    private var scripts: [FakeScript] = []
    var copiesScripts = false
    var userScripts: [FakeScript] { copiesScripts ? scripts.map { FakeScript($0.source) } : scripts }
    func addUserScript(_ script: FakeScript) { scripts.append(script) }
    func removeAllUserScripts() { scripts.removeAll() }
    func source(of script: FakeScript) -> String { script.source }
    var sources: [String] { scripts.map(\.source) }
}

/// The WKWebView adapter's user-script bookkeeping (``UserScriptLedger``).
@MainActor
@Suite("Apple adapter: the bridge removes exactly its own user scripts")
struct UserScriptLedgerTests {
    @Test("removeAll takes out the bridge's scripts and keeps the app's, in their order")
    func removesOnlyOwn() {
        let controller = FakeController()
        let ledger = UserScriptLedger(controller: controller)
        controller.addUserScript(FakeScript("app-1"))
        ledger.add(FakeScript("shim"))
        controller.addUserScript(FakeScript("app-2"))
        ledger.replaceTaskList(with: FakeScript("tasks-1"), revision: 1)
        ledger.removeAll()
        #expect(controller.sources == ["app-1", "app-2"])
        #expect(ledger.added.isEmpty)
    }

    @Test("a newer task list replaces the older one; an older revision arriving late is ignored")
    func taskListRevisions() {
        let controller = FakeController()
        let ledger = UserScriptLedger(controller: controller)
        ledger.add(FakeScript("shim"))
        #expect(ledger.replaceTaskList(with: FakeScript("tasks-1"), revision: 1))
        #expect(ledger.replaceTaskList(with: FakeScript("tasks-3"), revision: 3))
        #expect(!ledger.replaceTaskList(with: FakeScript("tasks-2"), revision: 2))
        #expect(controller.sources == ["shim", "tasks-3"])
    }

    @Test("when the engine hands back copies, the bridge's scripts are found by source")
    func copies() {
        let controller = FakeController()
        let ledger = UserScriptLedger(controller: controller)
        ledger.add(FakeScript("shim"))
        controller.addUserScript(FakeScript("app"))
        controller.copiesScripts = true
        ledger.removeAll()
        controller.copiesScripts = false
        #expect(controller.sources == ["app"])
    }

    @Test("an adopted script (the document notice, added by its handler) is removed too")
    func adopted() {
        let controller = FakeController()
        let ledger = UserScriptLedger(controller: controller)
        let notice = FakeScript("notice")
        controller.addUserScript(notice)
        ledger.adopt(notice)
        ledger.removeAll()
        #expect(controller.sources.isEmpty)
    }
}
