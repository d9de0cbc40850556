import BridgeKit

/// An ``AlertPresenter`` that answers at once with a fixed rule, and remembers what it showed.
///
/// For headless hosts (bridgehost on Linux), demos and tests.
public final class AutomaticAlertPresenter: AlertPresenter {
    /// How the button is chosen.
    public enum Rule: Sendable, Hashable {
        /// The first button.
        case first
        /// The last button (often "OK" after "Cancel").
        case last
        /// The button with this label, or the first when there is none.
        case label(String)
    }

    private let rule: Rule
    private let onPresent: (@Sendable (AlertRequest, Int) -> Void)?
    private let shown = Locked<[AlertRequest]>([])

    /// Creates a presenter.
    /// - Parameters:
    ///   - rule: which button to choose.
    ///   - onPresent: called with each request and the chosen index (for logging).
    public init(rule: Rule = .first, onPresent: (@Sendable (AlertRequest, Int) -> Void)? = nil) {
        self.rule = rule
        self.onPresent = onPresent
    }

    /// Every request presented so far, in order.
    public var presented: [AlertRequest] { shown.withLock { $0 } }

    public func present(_ request: AlertRequest) async throws -> Int {
        let index: Int =
            switch rule {
            case .first: 0
            case .last: max(request.buttons.count - 1, 0)
            case .label(let label): request.buttons.firstIndex(of: label) ?? 0
            }
        shown.withLock { $0.append(request) }
        onPresent?(request, index)
        return index
    }
}
