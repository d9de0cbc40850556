/// The part of a web view's content controller that holds user scripts: `WKUserContentController`
/// on Apple platforms, a fake in the Linux tests.
@MainActor
package protocol UserScriptController: AnyObject {
    /// The engine's user script object (`WKUserScript`).
    associatedtype UserScript: AnyObject
    /// The scripts, in the order they run (`userScripts`).
    var userScripts: [UserScript] { get }
    /// Adds a script at the end (`addUserScript(_:)`).
    func addUserScript(_ script: UserScript)
    /// Removes every script (`removeAllUserScripts()`); there is no way to remove one.
    func removeAllUserScripts()
    /// A script's source (`WKUserScript.source`).
    func source(of script: UserScript) -> String
}

/// The user scripts one bridge added to a content controller, so that it removes exactly those
/// and nothing of the app's, and keeps one task-list script current.
///
/// - `WKUserContentController` can only remove all scripts, so ``removeAll()`` removes all and
///   adds the others back, in their order, as the same objects. Scripts are found by identity
///   (`userScripts` returns the added objects); should an engine hand back copies, by source.
/// - ``replaceTaskList(with:revision:)`` swaps the task-list script for a newer revision only, so
///   task-list notices that arrive out of order never bring back an older list.
///
/// Holds the controller weakly. Thread: main actor.
@MainActor
package final class UserScriptLedger<Controller: UserScriptController> {
    private weak var controller: Controller?
    /// The scripts added through this ledger (or adopted), in order.
    package private(set) var added: [Controller.UserScript] = []
    private var taskList: (script: Controller.UserScript, revision: UInt64)?

    /// Creates a ledger for `controller` (held weakly).
    package init(controller: Controller) {
        self.controller = controller
    }

    /// Adds `script` to the controller and remembers it.
    package func add(_ script: Controller.UserScript) {
        guard let controller else { return }
        controller.addUserScript(script)
        added.append(script)
    }

    /// Remembers a script someone else already added for this bridge.
    package func adopt(_ script: Controller.UserScript) {
        added.append(script)
    }

    /// Makes `script` the task-list script unless a newer revision is there.
    /// - Returns: whether it was added.
    @discardableResult
    package func replaceTaskList(with script: Controller.UserScript, revision: UInt64) -> Bool {
        guard controller != nil else { return false }
        if let current = taskList {
            guard current.revision <= revision else { return false }
            added.removeAll { $0 === current.script }
            remove([current.script])
        }
        add(script)
        taskList = (script, revision)
        return true
    }

    /// Removes every script this ledger added, and nothing else.
    package func removeAll() {
        let scripts = added
        added = []
        taskList = nil
        remove(scripts)
    }

    /// Removes exactly `scripts` from the controller, keeping the others in their order.
    private func remove(_ scripts: [Controller.UserScript]) {
        guard !scripts.isEmpty, let controller else { return }
        let all = controller.userScripts
        let identical = all.contains { script in scripts.contains { $0 === script } }
        let sources = identical ? [] : Set(scripts.map { controller.source(of: $0) })
        let isOurs: (Controller.UserScript) -> Bool =
            identical
            ? { script in scripts.contains { $0 === script } }
            : { script in sources.contains(controller.source(of: script)) }
        let remaining = all.filter { !isOurs($0) }
        guard remaining.count < all.count else { return }
        controller.removeAllUserScripts()
        for other in remaining {
            controller.addUserScript(other)
        }
    }
}
