/// A presenter's alerts, one at a time, in the order their calls came: a page's alerts are
/// modal, as `window.alert` is. The platform-neutral part of the UIKit and AppKit presenters,
/// unit-tested on Linux; an ``AlertPresenter`` of your own (a GTK dialog) can use it too.
///
/// Without it a second alert was presented on top of the first (UIKit presents from the
/// top-most controller; AppKit queues a second sheet on the window), and ending the first, when
/// its call was cancelled, dismissed the second with it (UIKit dismisses every controller above
/// the one dismissed), so the second call failed `cancelled` although nobody chose.
///
/// Thread: main actor, like UIKit and AppKit.
@MainActor
public final class AlertQueue {
    /// Whether an alert of this queue is on screen (or being shown).
    public private(set) var isShowing = false
    /// The calls waiting for their turn, oldest first.
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter: UInt64 = 0

    /// Creates an empty queue.
    public init() {}

    /// How many calls wait for their turn.
    public var waiting: Int { waiters.count }

    /// Runs `show` once no earlier alert of this queue is showing, and passes the turn on when it
    /// returns or throws.
    /// - Parameter show: shows one alert and returns its answer (the index of the chosen button).
    /// - Returns: what `show` returned.
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits (`show`
    ///   never runs, and the next call's turn is not delayed); otherwise what `show` throws.
    public func run<Answer: Sendable>(_ show: @MainActor () async throws -> Answer) async throws -> Answer {
        try await takeTurn()
        defer { passTurn() }
        try Task.checkCancellation()
        return try await show()
    }

    /// Returns when it is the caller's turn.
    private func takeTurn() async throws {
        try Task.checkCancellation()
        guard isShowing else {
            isShowing = true
            return
        }
        nextWaiter &+= 1
        let id = nextWaiter
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // A cancellation before this point found no waiter to remove: honoured here.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { @MainActor in self.leave(id) }
        }
    }

    /// Gives the turn to the oldest waiting call, or ends the showing.
    private func passTurn() {
        if waiters.isEmpty {
            isShowing = false
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Removes waiter `id` (its task was cancelled), unless it already has its turn.
    private func leave(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
