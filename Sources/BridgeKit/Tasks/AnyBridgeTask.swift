public import Foundation

/// A type-erased task as the router stores it: the decode step and the run step, each opened
/// on the task's own types. A class, so that handing it from the task table to a call costs one
/// reference count, not one per stored closure.
///
/// Its initializer is `@inlinable`, like ``BridgeRouter/register(_:)-(BridgeTask)``: the closures are compiled
/// in the module that registers the task, with the task's own types, so that calling them does
/// not look up the task's associated types and value witnesses at run time.
@usableFromInline
final class AnyBridgeTask: Sendable {
    @usableFromInline let name: String
    @usableFromInline let policy: AccessPolicy?
    @usableFromInline let timeout: Duration?
    /// ``BridgeTask/version``, for the task list (``BridgeTaskList``).
    @usableFromInline let version: String?
    @usableFromInline let execution: TaskExecution
    /// Whether the options are ``RawJSON``, which the fast path hands over without decoding.
    @usableFromInline let takesRawJSON: Bool
    /// Decodes the options from the envelope's `options` member (absent means JSON `null`).
    @usableFromInline let decodeOptions: @Sendable (any Decoder) throws -> any Sendable
    /// Decodes the options from the JSON text of the `options` member alone (the fast path),
    /// with the same decoder and errors as `decodeOptions`.
    @usableFromInline let decodeOptionsText: @Sendable (Data) throws -> any Sendable
    /// Runs the task with options produced by `decodeOptions`. Takes the options over: they are
    /// moved out of the existential into the task's type, not copied.
    @usableFromInline let run: @Sendable (consuming any Sendable, CallContext) async throws -> any Encodable & Sendable
    /// For a ``SynchronousBridgeTask``: decodes, runs and encodes a call in one step
    /// (``SynchronousResponder``); `nil` for other tasks.
    @usableFromInline let respond: SynchronousResponder?

    @inlinable
    convenience init<T: BridgeTask>(_ task: T) {
        self.init(task, respond: (task as? any SynchronousBridgeTask).map { Self.responder(for: $0) })
    }

    /// Erases a ``SynchronousBridgeTask`` of a type known where it is registered: as
    /// the general initializer, with its one-pass step compiled for its own types.
    @inlinable
    convenience init<T: SynchronousBridgeTask>(_ task: T) {
        self.init(
            task,
            respond: { text, admit, write in SynchronousStep.respond(task, toOptions: text, admit: admit, write: write)
            })
    }

    /// The shared part of both initializers: everything but the synchronous step.
    @inlinable
    init<T: BridgeTask>(_ task: T, respond: SynchronousResponder?) {
        name = task.name
        policy = task.policy
        timeout = task.timeout
        version = task.version
        execution = task.execution
        takesRawJSON = T.Options.self == RawJSON.self
        decodeOptions = { decoder in try T.Options(from: decoder) }
        decodeOptionsText = { text in try BridgeJSON.sharedDecoder.decode(T.Options.self, from: text) }
        run = { options, context in
            guard let typed = (consume options) as? T.Options else {
                throw BridgeError.invalidOptions("Options of the wrong type reached \(T.self).", path: "")
            }
            return try await task.run(typed, context: context)
        }
        self.respond = respond
    }

    /// The one-pass step of a ``SynchronousBridgeTask`` whose type was not known where it was
    /// registered (an `any BridgeTask`): the same step, not specialised for its types.
    @usableFromInline
    static func responder<T: SynchronousBridgeTask>(for task: T) -> SynchronousResponder {
        { text, admit, write in SynchronousStep.respond(task, toOptions: text, admit: admit, write: write) }
    }
}

/// Runs one call of a ``SynchronousBridgeTask`` from the JSON text of its options (`null` when
/// absent; only read during the call, except by a task whose options are ``RawJSON``, which keeps
/// it: the router hands such a task a `Data` that owns its bytes): decodes them, asks `admit` for the call's context (`nil`:
/// the router refused the call and answers it itself), runs the task and encodes its result
/// inside `write`, which gets the context and the encoding step and returns its JSON text (the
/// router's ``BinaryOutlet`` turns `Data` in the result into downloads there).
@usableFromInline
typealias SynchronousResponder =
    @Sendable (
        _ options: Data, _ admit: () -> CallContext?, _ write: (CallContext, () throws -> Data) throws -> Data
    ) -> SynchronousOutcome

// MARK: The registered tasks by name

/// The registered tasks by name, as ``BridgeRouter`` keeps them in its state, under its one lock
/// (``RouterState/taskTable``).
///
/// A page calls a few tasks over and over, so the last task found is kept beside the table: a
/// message for it is matched by comparing names (a short name is compared as two machine words)
/// instead of hashing the name for the dictionary.
struct TaskTable: Sendable {
    /// Every registered task, by name.
    private(set) var tasks: [String: AnyBridgeTask] = [:]
    /// Grows by one whenever a task is added, replaced or removed (``BridgeTaskList/revision``).
    private(set) var revision: UInt64 = 0
    /// Who is told about every change (``BridgeRouter/addTaskListObserver(_:)``), by id.
    var observers: [Int: @Sendable (BridgeTaskList) -> Void] = [:]
    /// The id the next observer gets.
    var nextObserverID = 0
    /// The task the last look-up found; always one of ``tasks``.
    private var last: AnyBridgeTask?

    /// Whether a task with a policy of its own admits `source` (a task may admit senders the
    /// router's policy refuses). Reads every task: for the rare refused sender only.
    func hasOwnPolicy(admitting source: MessageSource) -> Bool {
        tasks.values.contains { task in task.policy.map { $0.refusal(for: source) == nil } ?? false }
    }

    /// The task registered as `name`, if any.
    mutating func task(named name: String) -> AnyBridgeTask? {
        if let last, last.name == name { return last }
        let found = tasks[name]
        if let found { last = found }
        return found
    }

    /// Registers `task` under its name unless that name is taken.
    /// - Returns: whether it was added.
    mutating func add(_ task: AnyBridgeTask) -> Bool {
        guard tasks[task.name] == nil else { return false }
        tasks[task.name] = task
        revision &+= 1
        return true
    }

    /// Registers `task` under its name, replacing any task of that name.
    /// - Returns: whether a task was replaced.
    mutating func replace(with task: AnyBridgeTask) -> Bool {
        if last?.name == task.name { last = nil }
        revision &+= 1
        return tasks.updateValue(task, forKey: task.name) != nil
    }

    /// The tasks as the page sees them, with the current revision.
    var list: BridgeTaskList {
        BridgeTaskList(tasks: tasks.mapValues { $0.version }, revision: revision)
    }

    /// Removes the task `name`.
    /// - Returns: whether a task was removed.
    mutating func remove(named name: String) -> Bool {
        if last?.name == name { last = nil }
        guard tasks.removeValue(forKey: name) != nil else { return false }
        revision &+= 1
        return true
    }
}
