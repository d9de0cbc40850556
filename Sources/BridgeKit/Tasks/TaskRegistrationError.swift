/// Why a task could not be registered (``BridgeRouter/register(_:)-(BridgeTask)``).
public enum TaskRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A task with this name is already registered; use ``BridgeRouter/replace(_:)-(BridgeTask)``.
    case duplicateName(String)
    /// Task names must not be empty.
    case emptyName
    /// The task `task` stores a property named like a ``BridgeTask`` requirement (`property`) but
    /// of another type than the requirement's (`expectedType`): for example `let timeout =
    /// Duration.seconds(5)` (a `Duration`) where the requirement is `var timeout: Duration?`.
    /// Swift accepts such a property and implements the requirement with the protocol's default
    /// instead (`nil`: no time limit of the task's own, the router's policy, no version), so
    /// the declaration would be ignored without a word. Declare the property with
    /// `expectedType`.
    case misdeclaredRequirement(task: String, property: String, expectedType: String)

    public var description: String {
        switch self {
        case .duplicateName(let name):
            "A task named \"\(name)\" is already registered; use replace(_:) to swap it."
        case .emptyName:
            "A task name must not be empty."
        case .misdeclaredRequirement(let task, let property, let expectedType):
            "Task \"\(task)\": the stored property `\(property)` is not the BridgeTask requirement, "
                + "whose type is `\(expectedType)`, so it would be ignored; declare it as `\(expectedType)`."
        }
    }

    /// The first requirement `task` stores with another type than the requirement's, as an
    /// error; `nil` when there is none. Reads the task's stored properties with `Mirror`
    /// (computed properties are not seen).
    @usableFromInline
    static func misdeclaredRequirement(in task: some BridgeTask) -> TaskRegistrationError? {
        for child in Mirror(reflecting: task).children {
            guard let property = child.label else { continue }
            let storedType = type(of: child.value)
            let expected: (type: Any.Type, name: String)
            switch property {
            case "policy": expected = (AccessPolicy?.self, "AccessPolicy?")
            case "timeout": expected = (Duration?.self, "Duration?")
            case "version": expected = (String?.self, "String?")
            case "execution": expected = (TaskExecution.self, "TaskExecution")
            default: continue
            }
            if storedType != expected.type {
                return .misdeclaredRequirement(task: task.name, property: property, expectedType: expected.name)
            }
        }
        return nil
    }
}
