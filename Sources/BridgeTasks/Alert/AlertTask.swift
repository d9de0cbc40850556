public import BridgeKit

/// The stock `Alert` task: options `{title?, message?, buttons?}`, result `{index, button}`.
///
/// Errors: `invalid_options` when more than ``maxButtons`` buttons are asked for or a text is
/// over its limit (``maxTitleLength``, ``maxMessageLength``, ``maxLabelLength``), with the
/// offending member's path; `task_failed` when the presenter returns an index out of range.
///
/// Texts are measured as the page measures them: in UTF-16 code units, JavaScript's `length`. A
/// Swift `Character` count would let one grapheme of any number of combining marks pass as one.
public struct AlertTask: BridgeTask {
    /// The most buttons an alert may have.
    public static let maxButtons = 8
    /// The longest button label, in UTF-16 code units.
    public static let maxLabelLength = 200
    /// The longest title, in UTF-16 code units.
    public static let maxTitleLength = 1024
    /// The longest message, in UTF-16 code units.
    public static let maxMessageLength = 16_384

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
        if let long = options.buttons.firstIndex(where: { $0.utf16.count > Self.maxLabelLength }) {
            throw BridgeError.invalidOptions(
                "A button label has at most \(Self.maxLabelLength) characters.", path: "buttons[\(long)]")
        }
        if let title = options.title, title.utf16.count > Self.maxTitleLength {
            throw BridgeError.invalidOptions("A title has at most \(Self.maxTitleLength) characters.", path: "title")
        }
        if let message = options.message, message.utf16.count > Self.maxMessageLength {
            throw BridgeError.invalidOptions(
                "A message has at most \(Self.maxMessageLength) characters.", path: "message")
        }
        let index = try await presenter.present(options)
        guard options.buttons.indices.contains(index) else {
            throw BridgeError.taskFailed("The alert presenter chose button \(index) of \(options.buttons.count).")
        }
        return AlertChoice(index: index, button: options.buttons[index])
    }
}
