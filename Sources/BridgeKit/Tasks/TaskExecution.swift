/// Where the router starts a task's calls (``BridgeTask/execution``).
///
/// The router reads every message's envelope on the thread the engine delivers it on (the main
/// thread for WebKit). What happens next is the task's choice; the options are decoded where the
/// call starts:
///
/// | | ``concurrent`` (default) | ``immediate`` |
/// |---|---|---|
/// | Starts | in a new Swift task on the global concurrent executor | at once, on the delivering thread |
/// | Options decoded | in that Swift task, off the engine's thread | on the delivering thread |
/// | The engine's thread | is free as soon as the envelope is read and the call admitted | runs the task until its first suspension |
/// | Cost per call | a thread hop there and back (about 10 µs of CPU on a 2-core Linux machine) | none |
/// | Use for | anything that computes, blocks, or may take long | short tasks: lookups, state changes, tasks that mostly `await` other work |
///
/// A task isolated to an actor (a `@MainActor` presenter, say) runs on that actor either way;
/// the choice only decides where the call *starts*. Cancellation, time limits, progress and
/// exactly-once settlement are the same in both.
public enum TaskExecution: Sendable, Hashable {
    /// Each call starts in a new Swift task on the global concurrent executor (`Task { }`).
    case concurrent
    /// Each call starts synchronously on the thread that delivered the message and runs there
    /// until it first suspends (`Task.immediate`, Swift 6.2, SE-0472); a task that never
    /// suspends is decoded, run, encoded and answered before ``BridgeRouter/receive(_:from:replyHandler:)``
    /// returns. On Apple platforms before iOS 26 / macOS 26, where `Task.immediate` does not
    /// exist, and when built with the Swift 6.1 compiler (Xcode 16.3, 16.4), which lacks it, it
    /// behaves as ``concurrent``.
    ///
    /// Everything the task does before its first suspension blocks the delivering thread, which
    /// is the UI thread in an app: keep such tasks short, and move heavy work behind an `await`
    /// of something that really suspends (an actor of its own, `Task.detached`).
    case immediate
}
