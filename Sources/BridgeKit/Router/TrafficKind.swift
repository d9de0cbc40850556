/// The kind of message a ``TrafficRecord`` is about (its ``TrafficRecord/kind``); the raw value is
/// the record's text in a log (`"call"`, `"reply"`, ...).
public enum TrafficKind: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A page-to-native call (inbound), or a native-to-page call (outbound).
    case call
    /// A cancel of a call: its ``TrafficRecord/task`` is the cancelled call's task, `nil` when no
    /// pending call matched (outcome `"dropped"`).
    case cancel
    /// A final reply.
    case reply
    /// A progress message of a call.
    case progress
    /// An event to the page's listeners.
    case event
    /// A new task list for the page.
    case tasks

    /// The raw value.
    public var description: String { rawValue }
}
