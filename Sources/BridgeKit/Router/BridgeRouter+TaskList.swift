import Foundation

extension BridgeRouter {
    /// The registered tasks with the versions they declare, and the revision of that list: what
    /// `WebBridge.supports` and `WebBridge.tasks()` answer from (``BridgeTaskList``). Any thread.
    public var taskList: BridgeTaskList {
        withTaskTable { $0.list }
    }

    /// Calls `observer` with the new list after every ``register(_:)-(BridgeTask)``, ``replace(_:)-(BridgeTask)`` (or their forms for synchronous tasks) and
    /// successful ``removeTask(named:)``, on the thread that made the change, in the order of
    /// the changes on that thread. Hosts use it to update the list they inject at document start.
    /// The observer must not block; it may run concurrently with itself when tasks change on
    /// several threads, so compare ``BridgeTaskList/revision`` to keep the newest.
    /// - Returns: an id for ``removeTaskListObserver(_:)``.
    @discardableResult
    public func addTaskListObserver(_ observer: @escaping @Sendable (BridgeTaskList) -> Void) -> Int {
        withTaskTable { table in
            table.nextObserverID += 1
            table.observers[table.nextObserverID] = observer
            return table.nextObserverID
        }
    }

    /// Stops calling the observer `id` (from ``addTaskListObserver(_:)``); an unknown id is ignored.
    public func removeTaskListObserver(_ id: Int) {
        _ = withTaskTable { $0.observers.removeValue(forKey: id) }
    }

    /// Tells the observers and the loaded page (a `tasks` message, docs/protocol.md) that the
    /// tasks changed. Without a connected page nothing is sent: the host's document-start script
    /// carries the list to the next document.
    func taskListDidChange() {
        let (list, observers) = withTaskTable { table in
            (table.list, table.observers.sorted { $0.key < $1.key }.map(\.value))
        }
        for observer in observers { observer(list) }
        guard state.withLock({ $0.channel != nil && !$0.isClosed }) else { return }
        let generation = pageGeneration
        let message = list.message
        let outgoing = OutgoingScript(
            script: PageScript.build(calling: .receive, json: message), bytes: message.count, kind: .tasks, id: nil,
            task: nil, generation: generation)
        Task { await self.send(outgoing) }
    }
}

extension BridgeRouter {
    /// Runs `body` on the task table, with the router's lock held.
    func withTaskTable<Result: Sendable>(_ body: (inout TaskTable) -> Result) -> Result {
        state.withLock { body(&$0.taskTable) }
    }
}
