import BridgeKit
import BridgeTasks
import Testing

/// The settling logic behind the UIKit and AppKit alert presenters (``AlertSession``).
@MainActor
@Suite("Alert session: every way an alert ends settles its call once")
struct AlertSessionTests {
    /// Starts a call on `session` and returns a task that waits for its answer.
    private func waitingCall(_ session: AlertSession) async -> Task<Result<Int, any Error>, Never> {
        let started = AsyncStream<Void>.makeStream()
        let call = Task { @MainActor in
            do {
                let index = try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Int, any Error>) in
                    _ = session.start(continuation)
                    started.continuation.yield()
                }
                return Result<Int, any Error>.success(index)
            } catch {
                return .failure(error)
            }
        }
        for await _ in started.stream { break }
        return call
    }

    @Test("a button settles the call with its index")
    func button() async throws {
        let session = AlertSession()
        let call = await waitingCall(session)
        #expect(session.didPresent() == .none)
        session.choose(2)
        #expect(try await call.value.get() == 2)
        #expect(session.isSettled)
    }

    @Test("a cancellation during the present animation settles at once and dismisses when the animation ends")
    func cancelWhilePresenting() async {
        let session = AlertSession()
        let call = await waitingCall(session)
        #expect(session.cancel() == .none, "UIKit would ignore a dismissal now")
        let result = await call.value
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(session.didPresent() == .dismiss, "the alert that finished appearing is dismissed")
        #expect(session.didPresent() == .none, "only once")
    }

    @Test("a cancellation while the alert is up dismisses it")
    func cancelWhilePresented() async {
        let session = AlertSession()
        let call = await waitingCall(session)
        _ = session.didPresent()
        #expect(session.cancel() == .dismiss)
        let result = await call.value
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("an alert dismissed by something else fails the call with cancelled instead of leaving it waiting")
    func dismissedElsewhere() async {
        let session = AlertSession()
        let call = await waitingCall(session)
        _ = session.didPresent()
        session.dismissedWithoutChoice()
        let result = await call.value
        #expect(throws: BridgeError.cancelled("The alert was dismissed without a choice.")) { try result.get() }
    }

    @Test("a button that settled the call wins over the dismissal notice that follows it")
    func buttonThenDismissal() async throws {
        let session = AlertSession()
        let call = await waitingCall(session)
        _ = session.didPresent()
        session.choose(0)
        session.dismissedWithoutChoice()
        #expect(session.cancel() == .none, "nothing left to dismiss or settle")
        #expect(try await call.value.get() == 0)
    }

    @Test("a call cancelled before the alert is presented presents nothing")
    func cancelledBeforeStart() async {
        let session = AlertSession()
        #expect(session.cancel() == .none)
        let result: Result<Int, any Error> = await {
            do {
                return .success(
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                        #expect(session.start(continuation) == false)
                    })
            } catch {
                return .failure(error)
            }
        }()
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(session.isSettled)
    }

    @Test("a failed presentation settles the call with its error")
    func failedPresentation() async {
        let session = AlertSession()
        let call = await waitingCall(session)
        session.fail(BridgeError.unavailable("UIKit did not present the alert."))
        let result = await call.value
        #expect(throws: BridgeError.unavailable("UIKit did not present the alert.")) { try result.get() }
        #expect(session.didPresent() == .none)
    }
}
