public import Foundation

/// The tasks a router offers, as a page sees them for feature detection
/// (`WebBridge.supports(name, minimumVersion?)`, `WebBridge.tasks()`; docs/protocol.md, "tasks").
///
/// A router gives its current list as ``BridgeRouter/taskList``. Hosts inject
/// ``documentStartScript`` right after the shim, so the page's first script already sees the
/// list, and the router sends the ``message`` to the loaded page whenever a task is registered,
/// replaced or removed. ``ApplicationToken/bridgeTasks(_:)`` advertises the list in the user
/// agent (opt-in).
///
/// The list says what the app offers, not what a page may call: the access policy still decides
/// each call.
public struct BridgeTaskList: Sendable, Hashable {
    /// Each task's name and the version it declares (``BridgeTask/version``), `nil` for none.
    public let tasks: [String: String?]
    /// Grows by one with every change of the router's tasks; a page ignores a list whose revision
    /// is lower than one it already has (deliveries can overtake each other).
    public let revision: UInt64

    /// Creates a list.
    /// - Parameters:
    ///   - tasks: task names and their versions (`nil`: none).
    ///   - revision: the router's change count (see ``revision``).
    public init(tasks: [String: String?], revision: UInt64 = 0) {
        self.tasks = tasks
        self.revision = revision
    }

    /// The task names, sorted.
    public var names: [String] { tasks.keys.sorted() }

    /// Whether a task is named `name`.
    public func contains(_ name: String) -> Bool { tasks[name] != nil }

    /// The version the task `name` declares; `nil` when it declares none or does not exist.
    public func version(of name: String) -> String? { tasks[name] ?? nil }

    /// The native-to-page `tasks` message as JSON text:
    /// `{"v":1,"kind":"tasks","revision":2,"tasks":{"Alert":"1","Echo":null}}`.
    public var message: Data {
        // Strings and nulls only: encoding cannot fail.
        (try? BridgeJSON.encode(Message(list: self))) ?? Data(#"{"v":1,"kind":"tasks","tasks":{}}"#.utf8)
    }

    /// The user script hosts inject at document start right after ``WebBridgeShim``, in the same
    /// world and frames: it hands ``message`` to `WebBridge._receive` (``PageFunction/receive``),
    /// so `WebBridge.supports` answers from the page's first script on. Data only, built by
    /// ``PageScript``.
    public var documentStartScript: String {
        PageScript.build(calling: .receive, json: message)
    }

    private struct Message: Encodable {
        let list: BridgeTaskList
        private enum Key: String, CodingKey { case v, kind, revision, tasks }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(1, forKey: .v)
            try container.encode("tasks", forKey: .kind)
            try container.encode(list.revision, forKey: .revision)
            try container.encode(list.tasks, forKey: .tasks)
        }
    }
}
