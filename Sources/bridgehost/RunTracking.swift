#if WebKitGTK
import BridgeKit
import Synchronization

/// Counts error replies, and those the page did not announce with `bridgehost.expectError`.
final class ErrorTally: Sendable {
    private let control: HostControl
    private let counts = Mutex((total: 0, unexpected: 0))

    init(control: HostControl) { self.control = control }

    func note(_ record: TrafficRecord) {
        guard record.direction == .outbound, record.kind == .reply, let outcome = record.outcome, outcome != "ok"
        else { return }
        let expected = control.consumeExpectation(outcome)
        counts.withLock { counts in
            counts.total += 1
            if !expected { counts.unexpected += 1 }
        }
    }

    var total: Int { counts.withLock { $0.total } }
    var unexpected: Int { counts.withLock { $0.unexpected } }
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
