#if os(macOS) && canImport(AppKit)
import BridgeKit
public import AppKit

/// An ``AlertPresenter`` that shows the page's alert as an `NSAlert` sheet on a window (macOS).
///
/// ```swift
/// try router.register(AlertTask(presenter: AppKitAlertPresenter(presentingIn: self)))
/// ```
///
/// - The alert is a sheet on the window (`beginSheetModal(for:completionHandler:)`, macOS 10.9),
///   so it never blocks the app's other windows. Buttons are added in the page's order: AppKit
///   puts the first on the right and makes it the default (Return); the chosen index is the
///   response's offset from `.alertFirstButtonReturn` (buttons after the third continue from
///   `.alertThirdButtonReturn`, NSAlert.h).
/// - When the call is cancelled (the page navigated, cancelled, or the call timed out), the
///   sheet is ended with `.abort` and `CancellationError` is thrown.
/// - When something else ends the sheet without a button (`endSheet(_:)`), the call fails with
///   `cancelled` instead of waiting.
/// - When there is no window, the call fails at once with `unavailable`.
/// - One sheet at a time, in the order the calls came (``AlertQueue``): AppKit queues a second
///   sheet on a window behind the first, and ending the first's call must not end another.
///
/// The settling logic is ``AlertSession``'s, tested on Linux. Thread: main actor (AppKit); the
/// router calls ``present(_:)`` from any task and hops here.
@MainActor
public final class AppKitAlertPresenter: AlertPresenter {
    private let window: @MainActor () -> NSWindow?
    private let queue = AlertQueue()

    /// Creates a presenter that asks `window` for the window to attach the sheet to, each time an
    /// alert is shown.
    /// - Parameter window: returns the window, or `nil` when none is available (the call then
    ///   fails with `unavailable`).
    public init(window: @escaping @MainActor () -> NSWindow?) {
        self.window = window
    }

    /// Creates a presenter that attaches the sheet to `viewController`'s window (the view
    /// controller is held weakly, so the presenter never keeps a screen alive).
    public convenience init(presentingIn viewController: NSViewController) {
        self.init(window: { [weak viewController] in viewController?.view.window })
    }

    /// Shows `request` as a sheet and returns the index of the button the person clicked.
    /// - Throws: `CancellationError` when the call is cancelled (the sheet is ended);
    ///   ``BridgeError/unavailable(_:)`` when there is no window; ``BridgeError/cancelled(_:)``
    ///   when the sheet ended without a button.
    public func present(_ request: AlertRequest) async throws -> Int {
        try await queue.run { try await show(request) }
    }

    /// Shows one sheet, once it is `request`'s turn (``present(_:)``).
    private func show(_ request: AlertRequest) async throws -> Int {
        try Task.checkCancellation()
        guard let window = window() else {
            throw BridgeError.unavailable("No window can show the alert.")
        }
        let alert = NSAlert()
        alert.messageText = request.title ?? ""
        alert.informativeText = request.message ?? ""
        for label in request.buttons {
            alert.addButton(withTitle: label)
        }
        let buttonCount = request.buttons.count
        let session = AlertSession()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                guard session.start(continuation) else { return }
                alert.beginSheetModal(
                    for: window,
                    completionHandler: { response in
                        let index = response.rawValue - NSApplication.ModalResponse.alertFirstButtonReturn.rawValue
                        if (0..<buttonCount).contains(index) {
                            session.choose(index)
                        } else {
                            session.dismissedWithoutChoice()
                        }
                    })
                _ = session.didPresent()
            }
        } onCancel: {
            Task { @MainActor in
                if session.cancel() == .dismiss { window.endSheet(alert.window, returnCode: .abort) }
            }
        }
    }
}
#endif
