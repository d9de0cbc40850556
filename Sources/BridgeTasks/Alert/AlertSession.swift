import BridgeKit

/// One alert on screen and the call waiting for it: the platform-neutral logic of the UIKit and
/// AppKit presenters, unit-tested on Linux. It settles the call exactly once, whichever comes
/// first: a button, a cancellation, a failed presentation, or the alert going away without a
/// button (something else dismissed it), and it tells the presenter when a dismissal that
/// arrived during the present animation must be carried out once the animation ends.
///
/// Thread: main actor, like UIKit and AppKit.
@MainActor
public final class AlertSession {
    /// What the presenter must do after an event.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Dismiss the alert (it is on screen and the call is over).
        case dismiss
    }

    private enum Phase {
        /// Before ``start(_:)``.
        case idle
        /// Presenting: UIKit ignores a dismissal during the present animation.
        case presenting
        /// On screen.
        case presented
        /// The call has its answer.
        case settled
    }

    private var phase = Phase.idle
    private var continuation: CheckedContinuation<Int, any Error>?
    private var isCancelled = false
    private var dismissesWhenPresented = false

    /// Creates a session.
    public init() {}

    /// Whether the call has its answer.
    public var isSettled: Bool { continuation == nil && (phase != .idle || isCancelled) }

    /// Stores the call's continuation before the alert is presented.
    /// - Returns: `false` when the call was cancelled already (the continuation then throws
    ///   `CancellationError` and nothing must be presented).
    public func start(_ continuation: CheckedContinuation<Int, any Error>) -> Bool {
        if isCancelled {
            phase = .settled
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        phase = .presenting
        return true
    }

    /// The present animation ended (UIKit's `present(_:animated:completion:)` completion).
    /// - Returns: ``Action/dismiss`` when the call ended during the animation.
    public func didPresent() -> Action {
        guard phase == .presenting else { return .none }
        phase = .presented
        if dismissesWhenPresented {
            phase = .settled
            return .dismiss
        }
        return .none
    }

    /// The person chose button `index` (the platform dismisses the alert itself).
    public func choose(_ index: Int) {
        settle(.success(index))
    }

    /// The presentation failed, or nothing can present.
    public func fail(_ error: any Error) {
        settle(.failure(error))
    }

    /// The alert left the screen without a button (another part of the app dismissed it, or
    /// AppKit ended the sheet): the call fails with ``BridgeError/cancelled(_:)`` instead of
    /// waiting for a choice that cannot come. Does nothing when the call already has its answer.
    public func dismissedWithoutChoice() {
        settle(.failure(BridgeError.cancelled("The alert was dismissed without a choice.")))
    }

    /// The call was cancelled (the page navigated or cancelled, or the call timed out): it throws
    /// `CancellationError` now.
    /// - Returns: ``Action/dismiss`` when the alert is on screen; ``Action/none`` when it is
    ///   still being presented (``didPresent()`` then returns ``Action/dismiss``), was never
    ///   presented, or the call had its answer already.
    public func cancel() -> Action {
        isCancelled = true
        let phaseBefore = phase
        guard settle(.failure(CancellationError())) else { return .none }
        switch phaseBefore {
        case .presenting:
            dismissesWhenPresented = true
            phase = .presenting
            return .none
        case .presented:
            return .dismiss
        case .idle, .settled:
            return .none
        }
    }

    /// Resumes the call once. - Returns: whether this call settled it.
    @discardableResult
    private func settle(_ result: Result<Int, any Error>) -> Bool {
        guard let continuation else { return false }
        self.continuation = nil
        phase = .settled
        continuation.resume(with: result)
        return true
    }
}
