#if WebKitGTK
import BridgeKit
import Synchronization

/// Counts error replies, and those the page did not announce with `bridgehost.expectError`.
final class ErrorTally: Sendable {
    private let control: HostControl
    private struct Counts {
        var total = 0
        /// The unexpected error replies, as "task #id code", in the order they came.
        var unexpected: [String] = []
        /// The ids of the calls the page cancelled itself (its `AbortSignal` or `timeout`): the
        /// `cancelled` (or, for its time limit, `timeout`) answer native gives each one is the
        /// page's doing, not an error.
        var cancelledByPage: Set<String> = []
    }
    private let counts = Mutex(Counts())

    init(control: HostControl) { self.control = control }

    func note(_ record: TrafficRecord) {
        if record.direction == .inbound, record.kind == .cancel, let id = record.id {
            counts.withLock { _ = $0.cancelledByPage.insert(id) }
            return
        }
        guard record.direction == .outbound, record.kind == .reply, let outcome = record.outcome, outcome != "ok"
        else { return }
        if outcome == "cancelled" || outcome == "timeout", let id = record.id,
            counts.withLock({ $0.cancelledByPage.remove(id) != nil })
        {
            return
        }
        let expected = control.consumeExpectation(outcome)
        let name = "\(record.task ?? "?") #\(record.id.map(TrafficPrinter.shortID) ?? "-") \(outcome)"
        counts.withLock { counts in
            counts.total += 1
            if !expected { counts.unexpected.append(name) }
        }
    }

    var total: Int { counts.withLock { $0.total } }
    var unexpected: Int { counts.withLock { $0.unexpected.count } }
    /// The unexpected error replies, as "task #id code".
    var unexpectedReplies: [String] { counts.withLock { $0.unexpected } }
}

/// Waits for the first finished load.
@MainActor
final class LoadWaiter {
    private var finished = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func finish() {
        finished = true
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
    }

    func wait() async {
        if finished { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
#endif
