public import BridgeKit

/// What the page asks the Alert task to show.
public struct AlertRequest: Decodable, Sendable, Hashable {
    /// The title; may be absent.
    public var title: String?
    /// The message text; may be absent.
    public var message: String?
    /// The button labels, in order. Absent or empty means one button, `"OK"`.
    public var buttons: [String]

    /// Creates a request.
    public init(title: String? = nil, message: String? = nil, buttons: [String] = ["OK"]) {
        self.title = title
        self.message = message
        self.buttons = buttons.isEmpty ? ["OK"] : buttons
    }

    private enum CodingKeys: String, CodingKey { case title, message, buttons }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        let buttons = try container.decodeIfPresent([String].self, forKey: .buttons) ?? []
        self.buttons = buttons.isEmpty ? ["OK"] : buttons
    }
}

/// The Alert task's result: the button the person chose.
public struct AlertChoice: Encodable, Sendable, Hashable {
    /// The index of the chosen button in ``AlertRequest/buttons``.
    public var index: Int
    /// The label of the chosen button.
    public var button: String

    /// Creates a choice.
    public init(index: Int, button: String) {
        self.index = index
        self.button = button
    }
}

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

/// The stock `Alert` task: options `{title?, message?, buttons?}`, result `{index, button}`.
///
/// Errors: `invalid_options` when more than ``maxButtons`` buttons are asked for or a label is
/// longer than 200 characters; `task_failed` when the presenter returns an index out of range.
public struct AlertTask: BridgeTask {
    /// The most buttons an alert may have.
    public static let maxButtons = 8

    public let name: String
    public let policy: AccessPolicy?
    private let presenter: any AlertPresenter

    /// Creates the task.
    /// - Parameters:
    ///   - presenter: shows the alert.
    ///   - name: the task name; default `"Alert"`.
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(presenter: any AlertPresenter, name: String = "Alert", policy: AccessPolicy? = nil) {
        self.presenter = presenter
        self.name = name
        self.policy = policy
    }

    public func run(_ options: AlertRequest, context: CallContext) async throws -> AlertChoice {
        guard options.buttons.count <= Self.maxButtons else {
            throw BridgeError.invalidOptions("An alert has at most \(Self.maxButtons) buttons.", path: "buttons")
        }
        if let long = options.buttons.firstIndex(where: { $0.count > 200 }) {
            throw BridgeError.invalidOptions("A button label has at most 200 characters.", path: "buttons[\(long)]")
        }
        let index = try await presenter.present(options)
        guard options.buttons.indices.contains(index) else {
            throw BridgeError.taskFailed("The alert presenter chose button \(index) of \(options.buttons.count).")
        }
        return AlertChoice(index: index, button: options.buttons[index])
    }
}
