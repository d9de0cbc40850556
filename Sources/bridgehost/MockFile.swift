import BridgeKit
import Foundation

/// A mock file (`--mock FILE`): task names mapped to canned replies, errors, delays, progress
/// steps and the events the app would send, checked entry by entry when it loads.
struct MockFile {
    /// One mocked task.
    struct Entry: Sendable, Equatable {
        /// What a call gets.
        enum Outcome: Sendable, Equatable {
            case reply(MockValue)
            case error(code: String, message: String, details: JSONValue?)
        }

        var task: String
        var outcome: Outcome
        /// Milliseconds before the reply.
        var delayMilliseconds: Int
        /// Progress data sent, evenly spread over the delay, before the reply.
        var progress: [MockValue]
        /// Events the app would send when the task runs (`WebBridge.on` listeners get them), sent
        /// after the progress, just before the reply.
        var events: [Event] = []
        /// The version the page sees for feature detection (`WebBridge.supports(task, "2")`);
        /// `nil` declares none.
        var version: String? = nil

        /// One event of ``events``.
        struct Event: Sendable, Equatable {
            var name: String
            var data: MockValue
        }
    }

    /// A mock file that cannot be used, with the reason and the entry at fault.
    struct LoadError: Error, CustomStringConvertible {
        var file: String
        var entry: String?
        var problem: String
        var description: String {
            if let entry { return "mock file \(file): entry \"\(entry)\": \(problem)" }
            return "mock file \(file): \(problem)"
        }
    }

    static let keys: Set<String> = ["reply", "error", "delayMs", "progress", "events", "version"]
    static let maxVersionLength = 64
    static let maxEvents = 1_000
    static let maxDelayMilliseconds = 600_000
    static let maxProgressSteps = 1_000

    var entries: [Entry]

    /// Reads and checks `path`.
    /// - Throws: ``LoadError`` naming the entry and what is wrong with it.
    static func load(_ path: String) throws(LoadError) -> MockFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LoadError(file: path, problem: "cannot be read (\(error.localizedDescription))")
        }
        return try parse(data, file: path)
    }

    /// Checks the JSON text `data` of the file `file` (named in errors).
    static func parse(_ data: Data, file: String) throws(LoadError) -> MockFile {
        let root: JSONValue
        do {
            root = try BridgeJSON.decode(JSONValue.self, from: data)
        } catch {
            throw LoadError(file: file, problem: "is not valid JSON (\(Self.describe(error)))")
        }
        // Foundation's decoder lets some non-JSON through (a trailing comma); the router's
        // strict reader does not, and neither does this file's.
        let (strict, unique) = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return (
                JSONValidator.isValid(bytes, maxDepth: .max, allowsRepeatedNames: true),
                JSONValidator.isValid(bytes, maxDepth: .max)
            )
        }
        guard strict else {
            throw LoadError(
                file: file,
                problem: "is not valid JSON (RFC 8259: no trailing commas, comments or single quotes)")
        }
        // The router refuses a body that names a member twice; a mock file that did would lose
        // one of its entries without a word (JSON decoders keep the last).
        if !unique {
            let twice = (root.objectValue?.keys.sorted() ?? []).filter { name in
                let quoted = (try? BridgeJSON.encode(name)).map { String(decoding: $0, as: UTF8.self) } ?? name
                let text = String(decoding: data, as: UTF8.self)
                return text.components(separatedBy: quoted).count > 2
            }
            throw LoadError(
                file: file,
                problem: "names a member twice"
                    + (twice.isEmpty ? "" : " (perhaps \(twice.map { "\"\($0)\"" }.joined(separator: ", ")))")
                    + "; each task and each key may appear once")
        }
        guard let object = root.objectValue else {
            throw LoadError(
                file: file,
                problem:
                    "must be a JSON object mapping task names to mocks, e.g. {\"Cart.add\": {\"reply\": {\"count\": 1}}}"
            )
        }
        var entries: [Entry] = []
        for (task, mock) in object.sorted(by: { $0.key < $1.key }) {
            entries.append(try entry(task, mock, file: file))
        }
        return MockFile(entries: entries)
    }

    private static func entry(_ task: String, _ mock: JSONValue, file: String) throws(LoadError) -> Entry {
        func fail(_ problem: String) -> LoadError { LoadError(file: file, entry: task, problem: problem) }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        func read(_ value: JSONValue, as what: String) throws(LoadError) -> MockValue {
            do {
                return try MockValue.read(value, folder: folder)
            } catch {
                throw fail("\(what): \(error.message)")
            }
        }
        guard !task.isEmpty else { throw fail("the task name is empty") }
        guard !task.hasPrefix("bridgehost.") else {
            throw fail("names starting with \"bridgehost.\" are bridgehost's own control tasks")
        }
        guard let fields = mock.objectValue else {
            throw fail("must be an object with \"reply\" or \"error\", e.g. {\"reply\": {\"ok\": true}}")
        }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            throw fail("unknown key \"\(unknown)\" (expected reply, error, delayMs, progress, events, version)")
        }
        let outcome: Entry.Outcome
        switch (fields["reply"], fields["error"]) {
        case (.some, .some):
            throw fail("has both \"reply\" and \"error\"; give one")
        case (nil, nil):
            throw fail("needs \"reply\" (any JSON) or \"error\" ({\"code\": …, \"message\": …})")
        case (.some(let reply), nil):
            outcome = .reply(try read(reply, as: "\"reply\""))
        case (nil, .some(let error)):
            guard let error = error.objectValue else {
                throw fail("\"error\" must be an object {\"code\": …, \"message\": …}")
            }
            if let unknown = error.keys.sorted().first(where: { !["code", "message", "details"].contains($0) }) {
                throw fail("unknown key \"error.\(unknown)\" (expected code, message, details)")
            }
            guard let code = error["code"]?.stringValue, !code.isEmpty, code != "ok" else {
                throw fail("\"error.code\" must be a non-empty string other than \"ok\" (the word of a success)")
            }
            let message: String
            switch error["message"] {
            case nil: message = "Mocked error \(code)."
            case .string(let text)?: message = text
            default: throw fail("\"error.message\" must be a string")
            }
            outcome = .error(code: code, message: message, details: error["details"])
        }
        var delay = 0
        if let value = fields["delayMs"] {
            guard let milliseconds = value.intValue, (0...Int64(maxDelayMilliseconds)).contains(milliseconds) else {
                throw fail("\"delayMs\" must be a whole number of milliseconds from 0 to \(maxDelayMilliseconds)")
            }
            delay = Int(milliseconds)
        }
        var progress: [MockValue] = []
        if let value = fields["progress"] {
            guard let steps = value.arrayValue, steps.count <= maxProgressSteps else {
                throw fail("\"progress\" must be an array of at most \(maxProgressSteps) steps (each any JSON)")
            }
            for (index, step) in steps.enumerated() {
                progress.append(try read(step, as: "\"progress\" step \(index + 1)"))
            }
        }
        var events: [Entry.Event] = []
        if let value = fields["events"] {
            let problem =
                "\"events\" must be an array of at most \(maxEvents) objects {\"name\": string, \"data\"?: any JSON}"
            guard let list = value.arrayValue, list.count <= maxEvents else { throw fail(problem) }
            for item in list {
                guard let event = item.objectValue, let name = event["name"]?.stringValue, !name.isEmpty,
                    event.keys.allSatisfy({ $0 == "name" || $0 == "data" })
                else { throw fail(problem) }
                // Bytes reach the page as an app's `emit` of `Data` sends them.
                let data = try read(event["data"] ?? .null, as: "event \"\(name)\"")
                events.append(Entry.Event(name: name, data: data))
            }
        }
        var version: String?
        if let value = fields["version"] {
            guard let text = value.stringValue, !text.isEmpty, text.count <= maxVersionLength else {
                throw fail("\"version\" must be a string of 1 to \(maxVersionLength) characters, e.g. \"2.1\"")
            }
            version = text
        }
        return Entry(
            task: task, outcome: outcome, delayMilliseconds: delay, progress: progress, events: events, version: version
        )
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

#if WebKitGTK
/// A task answered from a mock file entry.
struct MockTask: BridgeTask {
    typealias Options = JSONValue?
    typealias Result = MockValue

    let entry: MockFile.Entry
    /// The router the mock is registered on, for its ``MockFile/Entry/events``.
    let router: WeakRouter
    var name: String { entry.task }
    var version: String? { entry.version }

    func run(_ options: JSONValue?, context: CallContext) async throws -> MockValue {
        let pause = Double(entry.delayMilliseconds) / Double(entry.progress.count + 1)
        for step in entry.progress {
            if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
            try await context.progress(step)
        }
        if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
        for event in entry.events {
            guard let router = router.value else { throw BridgeError.unavailable() }
            try await router.emit(event.name, data: event.data)
        }
        switch entry.outcome {
        case .reply(let value): return value
        case .error(let code, let message, let details):
            throw BridgeError(code: code, message: message, details: details)
        }
    }
}
#endif
