#if canImport(UIKit)
import BridgeKit
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
///   alert is dismissed and `CancellationError` is thrown.
/// - When nothing can present (the view controller is gone or not in a window, or UIKit
///   refuses the presentation), the call fails at once with `unavailable` instead of waiting.
///
/// Thread: main actor (UIKit); the router calls ``present(_:)`` from any task and hops here.
@MainActor
public final class UIKitAlertPresenter: AlertPresenter {
    private let presentingViewController: @MainActor () -> UIViewController?

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
    /// - Throws: `CancellationError` when the call is cancelled (the alert is dismissed);
    ///   ``BridgeError/unavailable(_:)`` when no view controller in a window can present it.
    public func present(_ request: AlertRequest) async throws -> Int {
        try Task.checkCancellation()
        guard let host = topViewController(), host.viewIfLoaded?.window != nil else {
            throw BridgeError.unavailable("No view controller in a window can present the alert.")
        }
        let alert = UIAlertController(title: request.title, message: request.message, preferredStyle: .alert)
        let pending = PendingAlert(alert)
        for (index, label) in request.buttons.enumerated() {
            alert.addAction(UIAlertAction(title: label, style: .default, handler: { _ in
                pending.choose(index)
            }))
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                guard pending.start(continuation) else { return }
                host.present(alert, animated: true)
                // UIKit sets `presentingViewController` synchronously when it accepts the
                // presentation; when it refuses (a transition in progress, no window) it only
                // logs, and the call would wait for a tap that cannot come.
                if alert.presentingViewController == nil {
                    pending.fail(BridgeError.unavailable("UIKit did not present the alert."))
                }
            }
        } onCancel: {
            Task { @MainActor in pending.cancel() }
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

/// One alert on screen and the call waiting for it; settles the call exactly once.
@MainActor
private final class PendingAlert {
    private weak var alert: UIAlertController?
    private var continuation: CheckedContinuation<Int, any Error>?
    private var isCancelled = false

    init(_ alert: UIAlertController) {
        self.alert = alert
    }

    /// Stores the continuation; returns `false` (and throws into it) when already cancelled.
    func start(_ continuation: CheckedContinuation<Int, any Error>) -> Bool {
        if isCancelled {
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        return true
    }

    /// A button was tapped (UIKit dismisses the alert itself).
    func choose(_ index: Int) {
        continuation?.resume(returning: index)
        continuation = nil
    }

    /// The presentation failed.
    func fail(_ error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }

    /// The call was cancelled: dismiss the alert if it is up, and throw `CancellationError`.
    func cancel() {
        isCancelled = true
        guard let continuation else { return }
        self.continuation = nil
        if let alert, alert.presentingViewController != nil, !alert.isBeingDismissed {
            alert.dismiss(animated: true)
        }
        continuation.resume(throwing: CancellationError())
    }
}
#endif
