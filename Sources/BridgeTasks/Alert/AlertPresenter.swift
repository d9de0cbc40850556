/// Shows an alert on behalf of the page. The host implements it: `UIAlertController` on iOS,
/// a dialog or an automatic answer on Linux (``AutomaticAlertPresenter``), a scripted answer in
/// tests.
///
/// ## Implementation requirements
/// - Return the index of the chosen button, in `0..<request.buttons.count`.
/// - Return when the alert is dismissed; the call waits that long.
/// - When the call is cancelled (`Task.isCancelled`: the page navigated or cancelled), dismiss
///   the alert and throw `CancellationError`.
public protocol AlertPresenter: Sendable {
    /// Presents `request` and returns the chosen button's index.
    func present(_ request: AlertRequest) async throws -> Int
}
