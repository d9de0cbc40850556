import BridgeKit

/// The task every router measurement calls: decodes ``BenchPayload`` options and returns them as
/// its typed result, so the measured work is the bridge's, not the task's. Registered twice, once
/// per ``TaskExecution``: `BenchEcho` (concurrent, the default) and `BenchEchoNow` (immediate).
struct BenchEchoTask: BridgeTask {
    let execution: TaskExecution

    var name: String { Self.name(for: execution) }

    static func name(for execution: TaskExecution) -> String {
        execution == .immediate ? "BenchEchoNow" : "BenchEcho"
    }

    func run(_ options: BenchPayload, context: CallContext) async throws -> BenchPayload {
        options
    }
}
