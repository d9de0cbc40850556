/// The registered tasks by name, as ``BridgeRouter`` keeps them in its state, under its one lock
/// (``RouterState/taskTable``).
///
/// A page calls a few tasks over and over, so the last task found is kept beside the table: a
/// message for it is matched by comparing names (a short name is compared as two machine words)
/// instead of hashing the name for the dictionary.
struct TaskTable: Sendable {
    /// Every registered task, by name.
    private(set) var tasks: [String: AnyBridgeTask] = [:]
    /// Grows by one whenever a task is added, replaced or removed (``BridgeTaskList/revision``).
    private(set) var revision: UInt64 = 0
    /// Who is told about every change (``BridgeRouter/addTaskListObserver(_:)``), by id.
    var observers: [Int: @Sendable (BridgeTaskList) -> Void] = [:]
    /// The id the next observer gets.
    var nextObserverID = 0
    /// The task the last look-up found; always one of ``tasks``.
    private var last: AnyBridgeTask?

    /// The task registered as `name`, if any.
    mutating func task(named name: String) -> AnyBridgeTask? {
        if let last, last.name == name { return last }
        let found = tasks[name]
        if let found { last = found }
        return found
    }

    /// Registers `task` under its name unless that name is taken.
    /// - Returns: whether it was added.
    mutating func add(_ task: AnyBridgeTask) -> Bool {
        guard tasks[task.name] == nil else { return false }
        tasks[task.name] = task
        revision &+= 1
        return true
    }

    /// Registers `task` under its name, replacing any task of that name.
    /// - Returns: whether a task was replaced.
    mutating func replace(with task: AnyBridgeTask) -> Bool {
        if last?.name == task.name { last = nil }
        revision &+= 1
        return tasks.updateValue(task, forKey: task.name) != nil
    }

    /// The tasks as the page sees them, with the current revision.
    var list: BridgeTaskList {
        BridgeTaskList(tasks: tasks.mapValues { $0.version }, revision: revision)
    }

    /// Removes the task `name`.
    /// - Returns: whether a task was removed.
    mutating func remove(named name: String) -> Bool {
        if last?.name == name { last = nil }
        guard tasks.removeValue(forKey: name) != nil else { return false }
        revision &+= 1
        return true
    }
}
