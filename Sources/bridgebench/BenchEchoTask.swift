import BridgeKit

/// How the bench task answers: the three ways a task can be written.
enum BenchTaskKind: String, CaseIterable, Sendable {
    /// ``BridgeTask`` started ``TaskExecution/concurrent`` (the default): a new Swift task per call.
    case concurrent
    /// ``BridgeTask`` started ``TaskExecution/immediate``: a Swift task started on the delivering thread.
    case immediate
    /// ``SynchronousBridgeTask``: no Swift task; answered before `receive` returns.
    case synchronous

    /// The task name the page calls.
    var taskName: String {
        switch self {
        case .concurrent: "BenchEcho"
        case .immediate: "BenchEchoNow"
        case .synchronous: "BenchEchoSync"
        }
    }

    /// The words for the table.
    var label: String {
        switch self {
        case .concurrent: "concurrent task"
        case .immediate: "immediate task"
        case .synchronous: "synchronous task"
        }
    }

    /// Registers the bench task of this kind.
    func register(in router: BridgeRouter) throws {
        switch self {
        case .concurrent: try router.register(BenchEchoTask(execution: .concurrent))
        case .immediate: try router.register(BenchEchoTask(execution: .immediate))
        case .synchronous: try router.register(BenchEchoSyncTask())
        }
    }
}

/// The task every router measurement calls: decodes ``BenchPayload`` options and returns them as
/// its typed result, so the measured work is the bridge's, not the task's. Registered once
/// per ``TaskExecution``: `BenchEcho` (concurrent, the default) and `BenchEchoNow` (immediate).
struct BenchEchoTask: BridgeTask {
    let execution: TaskExecution

    var name: String { execution == .immediate ? BenchTaskKind.immediate.taskName : BenchTaskKind.concurrent.taskName }

    func run(_ options: BenchPayload, context: CallContext) async throws -> BenchPayload {
        options
    }
}

/// ``BenchEchoTask`` as a ``SynchronousBridgeTask``: `BenchEchoSync`.
struct BenchEchoSyncTask: SynchronousBridgeTask {
    var name: String { BenchTaskKind.synchronous.taskName }

    func runSynchronously(_ options: BenchPayload, context: CallContext) throws -> BenchPayload {
        options
    }
}
