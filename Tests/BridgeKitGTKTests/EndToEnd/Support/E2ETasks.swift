#if WebKitGTK
import BridgeKit
import Foundation

/// Records what the test tasks saw: every run with its options and sender, and how runs ended.
final class TaskProbe: Sendable {
    /// One run of a task.
    struct Run: Sendable {
        let task: String
        let callID: String?
        let options: JSONValue
        let source: MessageSource
    }

    private let state = Locked<(runs: [Run], cancelled: [String?], finished: [String?])>(([], [], []))

    /// Every run so far, in order of start.
    var runs: [Run] { state.value.runs }
    /// Call ids of runs that ended because their Swift task was cancelled (`Task.isCancelled`).
    var cancelledCallIDs: [String?] { state.value.cancelled }
    /// Call ids of slow runs that ended without cancellation (should not happen).
    var uncancelledCallIDs: [String?] { state.value.finished }

    /// The runs of one task.
    func runs(of task: String) -> [Run] { runs.filter { $0.task == task } }

    func recordRun(_ task: String, _ options: JSONValue, _ context: CallContext) {
        let run = Run(task: task, callID: context.callID, options: options, source: context.source)
        state.update { $0.runs.append(run) }
    }

    func recordEnd(_ callID: String?, cancelled: Bool) {
        state.update { state in
            if cancelled { state.cancelled.append(callID) } else { state.finished.append(callID) }
        }
    }
}

/// The test tasks of the end-to-end suites, all recording into one ``TaskProbe``.
enum E2ETasks {
    /// `Record`: replies with its options and records them (escaping checks, fire-and-forget).
    static func record(_ probe: TaskProbe, name: String = "Record", policy: AccessPolicy? = nil) -> some BridgeTask {
        ClosureTask(name: name, policy: policy) { (options: JSONValue, context: CallContext) in
            probe.recordRun(name, options, context)
            return options
        }
    }

    /// `Slow`: waits (up to a minute) until its call is cancelled, and records whether it was.
    static func slow(_ probe: TaskProbe) -> some BridgeTask {
        ClosureTask(name: "Slow") { (options: JSONValue, context: CallContext) -> NoResult in
            probe.recordRun("Slow", options, context)
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                probe.recordEnd(context.callID, cancelled: Task.isCancelled)
                throw error
            }
            probe.recordEnd(context.callID, cancelled: Task.isCancelled)
            return NoResult()
        }
    }

    /// `Progress`: sends `{"step":1}` and `{"step":2}` as progress, then replies `"done"`.
    static func progress(_ probe: TaskProbe) -> some BridgeTask {
        ClosureTask(name: "Progress") { (options: JSONValue, context: CallContext) in
            probe.recordRun("Progress", options, context)
            try await context.progress(["step": 1])
            try await context.progress(["step": 2])
            return "done"
        }
    }

    /// `WhoAmI`: any origin, subframes too; replies with the sender the router was told about.
    static func whoAmI(_ probe: TaskProbe) -> some BridgeTask {
        ClosureTask(name: "WhoAmI", policy: .anyOrigin(allowsSubframes: true)) {
            (options: JSONValue, context: CallContext) -> JSONValue in
            probe.recordRun("WhoAmI", options, context)
            return [
                "origin": context.source.origin.map { .string($0.description) } ?? .null,
                "mainFrame": .bool(context.source.isMainFrame),
            ]
        }
    }
}
#endif
