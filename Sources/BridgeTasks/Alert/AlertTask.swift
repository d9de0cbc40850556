public import BridgeKit

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
