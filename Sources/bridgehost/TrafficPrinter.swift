import BridgeKit
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes bridgehost's log on standard output: the bridge traffic with payloads, the page's
/// console and errors, host events (load, alert, history) and the summary.
///
/// Two forms: JSON lines (one object per line, every message; for tools and pipes) and compact
/// human lines (for a terminal), where a long run of calls to one task is folded into one line.
/// Lines are written in the order they happen: a message is logged before the other side gets it.
final class TrafficPrinter: Sendable {
    /// The two forms of the log.
    enum Style: Sendable { case human, json }

    /// Counts shown in the summary.
    struct Counts: Sendable {
        var pageCalls = 0
        var nativeCalls = 0
        var errorReplies = 0
        var consoleLines = 0
        var pageErrors = 0
    }

    /// Lines of one task in a row after which further lines of it are folded (human form).
    static let foldAfter = 4

    private struct State {
        var tasksByID: [String: String] = [:]
        var counts = Counts()
        /// The task of the current run of lines, how many were shown and how many were folded.
        var run: (task: String, shown: Int, folded: Int, calls: Int)?
    }

    let style: Style
    /// The most payload bytes a line shows (0: sizes only).
    let payloadLimit: Int
    private let start = Date()
    private let state = Mutex(State())

    init(style: Style, payloadLimit: Int) {
        self.style = style
        self.payloadLimit = payloadLimit
    }

    var counts: Counts { state.withLock { $0.counts } }

    // MARK: - Bridge messages

    /// `json` with every `\uD800`–`\uDFFF` escape written `\uFFFD`, for a message Foundation's
    /// decoder refuses because it holds a lone surrogate (JavaScript strings may; the router reads
    /// them): the log still shows the message, with U+FFFD where a half was. Escaped backslashes
    /// are kept as they are (`\\ud83d` is a backslash and text).
    static func replacingSurrogateEscapes(_ json: String) -> Data {
        let bytes = Array(json.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                out.append(bytes[index])
                index += 1
                continue
            }
            if bytes[index + 1] == UInt8(ascii: "u"), index + 5 < bytes.count,
                let first = HexDigit.value(bytes[index + 2]), first == 0xD,
                let second = HexDigit.value(bytes[index + 3]), second >= 0x8,
                HexDigit.value(bytes[index + 4]) != nil, HexDigit.value(bytes[index + 5]) != nil
            {
                out.append(contentsOf: Array("\\ufffd".utf8))
                index += 6
            } else {
                out.append(contentsOf: bytes[index...index + 1])
                index += 2
            }
        }
        return Data(out)
    }

    /// Logs one protocol message (`json` as it crossed the bridge).
    func message(inbound: Bool, json: String) {
        let parsed =
            (try? BridgeJSON.decode(JSONValue.self, from: Data(json.utf8)))
            ?? (try? BridgeJSON.decode(JSONValue.self, from: Self.replacingSurrogateEscapes(json)))
        let kind = parsed?["kind"]?.stringValue ?? "?"
        let id = parsed?["id"]?.stringValue
        var outcome: String?
        var payload: JSONValue?
        var name = parsed?["task"]?.stringValue ?? parsed?["name"]?.stringValue
        switch kind {
        case "call": payload = parsed?["options"]
        case "reply":
            if parsed?["ok"]?.boolValue == true {
                outcome = "ok"
                payload = parsed?["data"]
            } else {
                outcome = parsed?["error"]?["code"]?.stringValue ?? "error"
                payload = parsed?["error"]
            }
        case "progress", "event": payload = parsed?["data"]
        case "tasks": payload = parsed?["tasks"]
        default: break
        }
        let direction = inbound ? "in" : "out"
        state.withLock { state in
            if kind == "call" {
                if inbound { state.counts.pageCalls += 1 } else { state.counts.nativeCalls += 1 }
                if let id, let name { state.tasksByID[id] = name }
            } else if let id, name == nil {
                name = state.tasksByID[id]
            }
            if kind == "reply", let id {
                state.tasksByID[id] = nil
                if outcome != "ok" { state.counts.errorReplies += 1 }
            }
            let text = payload.map(Self.jsonText) ?? ""
            let bytes = json.utf8.count
            switch style {
            case .json:
                var line: [String: JSONValue] = [
                    "time": time(), "direction": .string(direction), "kind": .string(kind), "bytes": .int(Int64(bytes)),
                    "id": id.map(JSONValue.string) ?? .null, "task": name.map(JSONValue.string) ?? .null,
                    "outcome": outcome.map(JSONValue.string) ?? .null,
                ]
                if let payload, payloadLimit > 0 {
                    if text.utf8.count > payloadLimit {
                        line["payload"] = .string(Self.truncated(text, to: payloadLimit))
                        line["payloadTruncated"] = .int(Int64(text.utf8.count))
                    } else {
                        line["payload"] = payload
                    }
                }
                writeJSON(.object(line))
            case .human:
                let arrow = inbound ? "→" : "←"
                var parts = ["\(arrow) \(kind)", name ?? "?"]
                if let id { parts.append("#" + Self.shortID(id)) }
                if let outcome {
                    parts.append(outcome == "ok" ? "ok" : "error \(outcome)")
                }
                if kind == "reply", outcome != "ok", let message = payload?["message"]?.stringValue {
                    parts.append(Self.truncated(message, to: max(payloadLimit, 80)))
                } else if payload != nil {
                    parts.append(
                        payloadLimit == 0 ? "(\(text.utf8.count) bytes)" : Self.truncated(text, to: payloadLimit))
                }
                let line = parts.joined(separator: " ")
                let foldable = (kind == "call" || kind == "reply") && (outcome == nil || outcome == "ok") && name != nil
                if foldable, let name, var run = state.run, run.task == name {
                    if kind == "call" { run.calls += 1 }
                    if run.shown >= Self.foldAfter {
                        run.folded += 1
                        state.run = run
                        return
                    }
                    run.shown += 1
                    state.run = run
                } else {
                    flushFold(&state)
                    if foldable, let name { state.run = (name, 1, 0, kind == "call" ? 1 : 0) }
                }
                writeHuman(line)
            }
        }
    }

    /// Logs a router record that says more than the messages do: a refused or dropped message,
    /// a reply that was not delivered, an error the page saw only as a generic message.
    func record(_ record: TrafficRecord) {
        // Replies and refusals with an error code already show as messages; the record adds the
        // why (a policy refusal, an undelivered reply) and what the page did not see.
        guard record.reason != nil || record.internalError != nil || record.outcome == "dropped" else { return }
        var fields: [String: JSONValue] = [
            "direction": .string(record.direction.rawValue), "kind": .string(record.kind.rawValue),
            "id": record.id.map(JSONValue.string) ?? .null, "task": record.task.map(JSONValue.string) ?? .null,
            "outcome": record.outcome.map(JSONValue.string) ?? .null,
        ]
        if let reason = record.reason { fields["reason"] = .string(reason.description) }
        if let internalError = record.internalError { fields["internalError"] = .string(internalError) }
        var human = [
            record.direction == .inbound ? "refused" : "not delivered", record.kind.rawValue, record.task ?? "?",
        ]
        if let id = record.id { human.append("#" + Self.shortID(id)) }
        if let outcome = record.outcome { human.append(outcome) }
        if let reason = record.reason { human.append("(\(reason))") }
        if let internalError = record.internalError { human = ["task error", record.task ?? "?", internalError] }
        event("router", fields, human: human.joined(separator: " "))
    }

    // MARK: - Page console

    /// Logs a console message or an uncaught error of the page.
    /// - Parameters:
    ///   - level: `log`, `info`, `warn`, `error`, `debug`.
    ///   - kind: `console`, `uncaught` (an exception), `unhandledrejection`, `resource` (a
    ///     script, style or image that failed to load).
    func console(level: String, kind: String, message: String, source: String?, line: Int?) {
        let isError = kind != "console"
        state.withLock { state in
            if isError { state.counts.pageErrors += 1 } else { state.counts.consoleLines += 1 }
        }
        var fields: [String: JSONValue] = ["level": .string(level), "message": .string(message)]
        if isError { fields["kind"] = .string(kind) }
        if let source, !source.isEmpty { fields["source"] = .string(source) }
        if let line, line > 0 { fields["line"] = .int(Int64(line)) }
        var place = ""
        if let source, !source.isEmpty {
            place = " (" + (URL(string: source)?.lastPathComponent ?? source) + (line.map { ":\($0)" } ?? "") + ")"
        }
        let label = isError ? "page error" : "console.\(level)"
        event(
            isError ? "pageError" : "console", fields,
            human: "\(label.padding(toLength: 14, withPad: " ", startingAt: 0)) \(message)\(place)")
    }

    // MARK: - Host events

    /// Logs a host event (`load`, `alert`, `history`, `loadFailed`, `http`, …).
    /// - Parameters:
    ///   - name: the JSON `event` field.
    ///   - fields: the JSON fields.
    ///   - human: the human form (without the time); `nil` prints the name and the fields.
    func event(_ name: String, _ fields: [String: JSONValue], human: String? = nil) {
        state.withLock { state in
            switch style {
            case .json:
                var line = fields
                line["time"] = time()
                line["event"] = .string(name)
                writeJSON(.object(line))
            case .human:
                flushFold(&state)
                let text =
                    human ?? "\(name) "
                    + fields.sorted(by: { $0.key < $1.key })
                    .map { "\($0.key)=\(Self.jsonText($0.value))" }.joined(separator: " ")
                writeHuman(text)
            }
        }
    }

    /// Writes text lines as they are (human form only; the summary's body).
    func plain(_ lines: [String]) {
        guard style == .human else { return }
        state.withLock { state in
            flushFold(&state)
            let text = lines.map(Self.terminalSafe).joined(separator: "\n") + "\n"
            Self.writeOut(Data(text.utf8))
        }
    }

    /// Ends a folded run (before the summary).
    func flush() {
        state.withLock { flushFold(&$0) }
    }

    // MARK: - Helpers

    private func flushFold(_ state: inout State) {
        guard let run = state.run else { return }
        state.run = nil
        guard run.folded > 0 else { return }
        writeHuman(
            "… \(run.folded) more lines of \(run.task) (\(run.calls) calls in all) folded; --json shows every line")
    }

    private func time() -> JSONValue {
        .double((Date().timeIntervalSince(start) * 1e6).rounded() / 1e6)
    }

    private func writeHuman(_ text: String) {
        let seconds = String(format: "%7.3f", Date().timeIntervalSince(start))
        Self.writeOut(Data("\(seconds)  \(Self.terminalSafe(text))\n".utf8))
    }

    /// `text` safe to print on a terminal (`TerminalText.safe`): a page must not move the cursor,
    /// retitle the terminal or begin a line of its own that looks like bridgehost's.
    static func terminalSafe(_ text: String) -> String { TerminalText.safe(text) }

    private func writeJSON(_ value: JSONValue) {
        guard let data = try? BridgeJSON.encode(value) else { return }
        Self.writeOut(data + Data("\n".utf8))
    }

    /// Writes to standard output. When the reader has gone (`bridgehost … | head`), the process
    /// ends quietly with status 0, as a Unix filter does, instead of trapping in `FileHandle`.
    static func writeOut(_ data: Data) {
        data.withUnsafeBytes { raw in
            guard var base = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let written = write(STDOUT_FILENO, base, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { _exit(0) }
                    return
                }
                left -= written
                base += written
            }
        }
    }

    /// The call number of an id such as `"mj7aww1psecca-4"` (the shim's page prefix dropped).
    static func shortID(_ id: String) -> String {
        id.split(separator: "-").last.map(String.init) ?? id
    }

    /// Compact JSON text of `value`.
    static func jsonText(_ value: JSONValue) -> String {
        (try? BridgeJSON.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }

    /// `text` cut to at most `limit` bytes of UTF-8 (on a character boundary), with "…" when cut.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }
}
