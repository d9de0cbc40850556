import BridgeKit

/// The task every router measurement calls: decodes ``BenchPayload`` options and returns them as
/// its typed result, so the measured work is the bridge's, not the task's.
struct BenchEchoTask: BridgeTask {
    let name = "BenchEcho"

    func run(_ options: BenchPayload, context: CallContext) async throws -> BenchPayload {
        options
    }
}
