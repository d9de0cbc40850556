import BridgeKit
import BridgeTasks
import Testing

/// Kind of fault: two of a page's alerts on screen at once, the second presented on top of the
/// first (UIKit presents from the top-most controller; AppKit queues a second sheet). Ending the
/// first (its call cancelled) dismissed both in UIKit, so the second call failed `cancelled`
/// without anyone choosing, and AppKit's `endSheet` could end a sheet that was queued behind it.
/// A page's alerts are modal, one at a time, as `window.alert` is: ``AlertQueue`` shows them in
/// the order they came, and a call cancelled while it waits leaves the queue without showing.
@MainActor
@Suite("Alert queue: one alert at a time, in order; a cancelled wait shows nothing")
struct AlertQueueTests {
    /// A stand-in for an alert on screen: the test ends it.
    @MainActor
    final class Screen {
        var shown: [String] = []
        var open: [String: CheckedContinuation<Int, any Error>] = [:]
        func show(_ name: String) async throws -> Int {
            try await withCheckedThrowingContinuation { continuation in
                shown.append(name)
                open[name] = continuation
            }
        }
        func close(_ name: String, choosing index: Int) {
            open.removeValue(forKey: name)?.resume(returning: index)
        }
    }

    @Test("a second alert waits until the first is answered; then it is shown")
    func oneAtATime() async throws {
        let queue = AlertQueue()
        let screen = Screen()
        let first = Task { try await queue.run { try await screen.show("first") } }
        let second = Task { try await queue.run { try await screen.show("second") } }
        #expect(await eventually { screen.shown == ["first"] })
        #expect(queue.waiting == 1)
        screen.close("first", choosing: 0)
        #expect(try await first.value == 0)
        #expect(await eventually { screen.shown == ["first", "second"] })
        screen.close("second", choosing: 1)
        #expect(try await second.value == 1)
        #expect(queue.waiting == 0 && !queue.isShowing)
    }

    @Test("alerts are shown in the order their calls came")
    func order() async throws {
        let queue = AlertQueue()
        let screen = Screen()
        var calls: [Task<Int, any Error>] = []
        for n in 0..<5 {
            calls.append(Task { try await queue.run { try await screen.show("\(n)") } })
            #expect(await eventually { screen.shown.count == 1 && queue.waiting == n })
        }
        for n in 0..<5 {
            #expect(await eventually { screen.shown.last == "\(n)" })
            screen.close("\(n)", choosing: n)
            #expect(try await calls[n].value == n)
        }
        #expect(screen.shown == ["0", "1", "2", "3", "4"])
    }

    @Test("a call cancelled while it waits throws CancellationError at once and is never shown; the next one is")
    func cancelledWhileWaiting() async throws {
        let queue = AlertQueue()
        let screen = Screen()
        let first = Task { try await queue.run { try await screen.show("first") } }
        #expect(await eventually { screen.shown == ["first"] })
        let cancelled = Task { try await queue.run { try await screen.show("cancelled") } }
        let third = Task { try await queue.run { try await screen.show("third") } }
        #expect(await eventually { queue.waiting == 2 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.waiting == 1)
        screen.close("first", choosing: 0)
        _ = try await first.value
        #expect(await eventually { screen.shown == ["first", "third"] })
        screen.close("third", choosing: 2)
        #expect(try await third.value == 2)
    }

    @Test("an alert whose call throws passes the turn on")
    func failurePassesTheTurn() async throws {
        struct Refused: Error {}
        let queue = AlertQueue()
        let failing = Task { try await queue.run { () async throws -> Int in throw Refused() } }
        await #expect(throws: Refused.self) { try await failing.value }
        let next = try await queue.run { 7 }
        #expect(next == 7)
    }
}

/// Polls `condition` on the main actor until it holds or 30 s of wall clock pass.
@MainActor
private func eventually(_ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)
    while !condition() {
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
