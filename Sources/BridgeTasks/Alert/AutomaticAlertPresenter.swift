import BridgeKit

/// An ``AlertPresenter`` that answers at once with a fixed rule, and remembers the most recent
/// requests it showed (at most ``remembered``, so a page calling `Alert` without end cannot grow
/// the app).
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

    /// How many of the most recent requests ``presented`` keeps.
    public static let remembered = 64

    /// The most recent requests presented (at most ``remembered``), oldest first.
    public var presented: [AlertRequest] { shown.withLock { $0 } }

    public func present(_ request: AlertRequest) async throws -> Int {
        let index: Int =
            switch rule {
            case .first: 0
            case .last: max(request.buttons.count - 1, 0)
            case .label(let label): request.buttons.firstIndex(of: label) ?? 0
            }
        shown.withLock { shown in
            if shown.count == Self.remembered { shown.removeFirst() }
            shown.append(request)
        }
        onPresent?(request, index)
        return index
    }
}
