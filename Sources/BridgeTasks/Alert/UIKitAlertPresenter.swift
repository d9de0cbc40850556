#if canImport(UIKit)
import BridgeKit
import Dispatch
public import UIKit

/// An ``AlertPresenter`` that shows the page's alert as a `UIAlertController`.
///
/// ```swift
/// try router.register(AlertTask(presenter: UIKitAlertPresenter(presentingFrom: self)))
/// ```
///
/// - The alert is presented from the top-most view controller above the one given (following
///   `presentedViewController`), so it works while a sheet is up.
/// - Every button is a `.default` action, added in the page's order: a `.cancel` action would
///   be moved by UIKit and the chosen index would no longer match the page's list.
/// - When the call is cancelled (the page navigated, cancelled, or the call timed out), the
///   alert is dismissed (after the present animation, if it is still running: UIKit ignores a
///   dismissal during it) and `CancellationError` is thrown at once.
/// - When something else dismisses the alert without a button, the call fails with
///   `cancelled` instead of waiting. The logic is ``AlertSession``'s, tested on Linux.
/// - When nothing can present (the view controller is gone or not in a window, or UIKit
///   refuses the presentation), the call fails at once with `unavailable` instead of waiting.
/// - One alert at a time, in the order the calls came (``AlertQueue``): a second alert waits
///   for the first to be answered, as `window.alert` does; presented on top of the first, it was
///   dismissed with it when the first's call was cancelled.
///
/// Thread: main actor (UIKit); the router calls ``present(_:)`` from any task and hops here.
@MainActor
public final class UIKitAlertPresenter: AlertPresenter {
    private let presentingViewController: @MainActor () -> UIViewController?
    private let queue = AlertQueue()

    /// Creates a presenter that asks `presentingViewController` for the controller to present
    /// from, each time an alert is shown.
    /// - Parameter presentingViewController: returns the base view controller, or `nil` when
    ///   none is available (the call then fails with `unavailable`).
    public init(presentingViewController: @escaping @MainActor () -> UIViewController?) {
        self.presentingViewController = presentingViewController
    }

    /// Creates a presenter that presents from `viewController` (held weakly, so the presenter
    /// never keeps a screen alive).
    public convenience init(presentingFrom viewController: UIViewController) {
        self.init(presentingViewController: { [weak viewController] in viewController })
    }

    /// Shows `request` and returns the index of the button the person tapped.
    /// - Throws: `CancellationError` when the call is cancelled (the alert is dismissed, after
    ///   the present animation if it is still running); ``BridgeError/unavailable(_:)`` when no
    ///   view controller in a window can present it; ``BridgeError/cancelled(_:)`` when something
    ///   else dismissed the alert without a button.
    public func present(_ request: AlertRequest) async throws -> Int {
        try await queue.run { try await show(request) }
    }

    /// Shows one alert, once it is `request`'s turn (``present(_:)``).
    private func show(_ request: AlertRequest) async throws -> Int {
        try Task.checkCancellation()
        guard let host = topViewController(), host.viewIfLoaded?.window != nil else {
            throw BridgeError.unavailable("No view controller in a window can present the alert.")
        }
        let alert = UIAlertController(title: request.title, message: request.message, preferredStyle: .alert)
        let session = AlertSession()
        for (index, label) in request.buttons.enumerated() {
            alert.addAction(
                UIAlertAction(
                    title: label, style: .default,
                    handler: { _ in
                        session.choose(index)
                    }))
        }
        // Tells the session when the alert leaves its window without a button (see DismissalSentinel).
        alert.view.addSubview(DismissalSentinel(session: session))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                guard session.start(continuation) else { return }
                host.present(
                    alert, animated: true,
                    completion: {
                        MainActor.assumeIsolated {
                            if session.didPresent() == .dismiss { alert.dismiss(animated: true) }
                        }
                    })
                // UIKit sets `presentingViewController` synchronously when it accepts the
                // presentation; when it refuses (a transition in progress, no window) it only
                // logs, and the call would wait for a tap that cannot come.
                if alert.presentingViewController == nil {
                    session.fail(BridgeError.unavailable("UIKit did not present the alert."))
                }
            }
        } onCancel: {
            Task { @MainActor in
                // During the present animation UIKit ignores a dismissal: the session asks for it
                // again from the presentation's completion.
                if session.cancel() == .dismiss, !alert.isBeingDismissed { alert.dismiss(animated: true) }
            }
        }
    }

    /// The controller to present from: the base controller's top-most presented controller
    /// that is not being dismissed.
    private func topViewController() -> UIViewController? {
        guard var top = presentingViewController() else { return nil }
        while let next = top.presentedViewController, !next.isBeingDismissed {
            top = next
        }
        return top
    }
}

/// An invisible view inside the alert's view: when the alert leaves its window without a button
/// (another part of the app dismissed it), the waiting call fails instead of waiting forever.
/// UIKit calls an action's handler after the alert is dismissed, so the session is told one
/// main-queue turn later; a tapped button has settled the call by then and wins.
@MainActor
private final class DismissalSentinel: UIView {
    private let session: AlertSession
    private var wasInWindow = false

    init(session: AlertSession) {
        self.session = session
        super.init(frame: .zero)
        isHidden = true
    }

    required init?(coder: NSCoder) {
        return nil
    }

    override func didMoveToWindow() {
        super.didMoveToWindow()
        if window != nil {
            wasInWindow = true
        } else if wasInWindow {
            let session = session
            DispatchQueue.main.async {
                MainActor.assumeIsolated { session.dismissedWithoutChoice() }
            }
        }
    }
}
#endif
