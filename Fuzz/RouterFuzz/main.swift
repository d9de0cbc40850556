// libFuzzer target over BridgeRouter's input path (issue 6, item 3).
//
// Not part of the package: `scripts/fuzz` compiles this file together with every file of
// Sources/BridgeKit into ONE module (so it can read the router's internal state) with
// `swiftc -parse-as-library -sanitize=fuzzer,address`. `swift build` never sees it.
//
// Input layout (so a byte string describes a whole conversation):
//   byte 0            global settings (see `Settings`)
//   then records separated by 0x00; each record is one control byte (see `Control`) followed by
//   the message body bytes.
// Every input gets a fresh router with a few tasks (echo, progress, throwing, slow, callback,
// typed options, subframe widget) and an in-memory page channel. After the last record the
// router is closed and the harness waits until everything settled, then checks:
//   1. no crash, no sanitizer report (libFuzzer/ASan do that);
//   2. every reply id was answered at most as often as messages carrying that id were posted,
//      and by script (which reaches the main frame) at most as often as MAIN-FRAME messages
//      carrying it were posted: a subframe never settles a main-frame call;
//   3. every ReplyHandler was answered exactly once (the router's documented promise), and a
//      reply it carries names an id of its own message;
//   4. every evaluated script is one `_receive(<JSON>)` call whose JSON decodes, holds no raw
//      U+2028/U+2029, no `</script` and no `<!--` (case-insensitive);
//   5. the router's pending-call maps are empty after close().
// A violation calls `abort()`, which libFuzzer records as a crash in fuzz-out/.
import Dispatch
import Foundation
import Synchronization

// MARK: - Input decoding

/// Byte 0 of an input: router-wide settings.
struct Settings {
    /// bit 0: a page channel is connected (otherwise replies can only go through reply handlers).
    let connected: Bool
    /// bit 1: the channel's evaluate throws (the page is gone).
    let evaluationFails: Bool
    /// bit 2: small limits (payload 2 KiB, depth 6, 4 pending calls, 3 progress, 2 page calls).
    let smallLimits: Bool
    /// bit 3: a 1 ms default timeout for tasks that declare none.
    let shortTimeout: Bool

    init(_ byte: UInt8) {
        connected = byte & 0x01 == 0
        evaluationFails = byte & 0x02 != 0
        smallLimits = byte & 0x04 != 0
        shortTimeout = byte & 0x08 != 0
    }
}

/// The first byte of a record: how the body is handed over and what happens around it.
struct Control {
    enum Form { case string, json, wrappedString, absent }

    let form: Form
    let source: MessageSource
    let hasReplyHandler: Bool
    let navigateBefore: Bool
    let callPageBefore: Bool
    let settleAfter: Bool

    static let sources: [MessageSource] = [
        .mainFrame("https://app.example"),
        .subframe("https://app.example"),
        .mainFrame("https://evil.example"),
        .subframe("https://widgets.example"),
    ]

    init(_ byte: UInt8) {
        form = [Form.string, .json, .wrappedString, .absent][Int(byte & 0x03)]
        source = Self.sources[Int(byte >> 2 & 0x03)]
        hasReplyHandler = byte & 0x10 != 0
        navigateBefore = byte & 0x20 != 0
        callPageBefore = byte & 0x40 != 0
        settleAfter = byte & 0x80 != 0
    }

    func body(_ bytes: ArraySlice<UInt8>) -> MessageBody {
        switch form {
        case .string: .string(String(decoding: bytes, as: UTF8.self))
        case .json: .json(Data(bytes))
        case .wrappedString:
            .json((try? BridgeJSON.encode(String(decoding: bytes, as: UTF8.self))) ?? Data())
        case .absent: .absent
        }
    }
}

// MARK: - Tasks

struct TypedOptions: Decodable, Sendable {
    let a: Int
    let b: [String]
}

func makeTasks() -> [any BridgeTask] {
    [
        ClosureTask(name: "echo") { (options: JSONValue, _: CallContext) in options },
        ClosureTask(name: "progress") { (options: JSONValue, context: CallContext) -> Int64 in
            let count = max(0, min(options.int("n") ?? 2, 8))
            for step in 0..<count { try await context.progress(["step": JSONValue.int(step)]) }
            return count
        },
        ClosureTask(name: "throw") { (options: JSONValue, _: CallContext) -> NoResult in
            if let code = options.string("code") { throw BridgeError(code: code, message: "thrown") }
            throw CocoaError(.featureUnsupported)
        },
        ClosureTask(name: "slow", timeout: .milliseconds(2)) { (_: NoOptions, _: CallContext) -> String in
            for _ in 0..<3 { try await Task.sleep(for: .milliseconds(1)) }
            return "slow"
        },
        CallbackTask(name: "cb") { (options: JSONValue, _: CallContext, responder: CallResponder<JSONValue>) in
            if options.isNull { return }  // released unanswered: task_failed
            responder.respond(options)
            responder.respond(["again": true])
        },
        ClosureTask(name: "typed") { (options: TypedOptions, _: CallContext) in options.b.count + options.a },
        ClosureTask(name: "widget", policy: .origins(["https://widgets.example"], allowsSubframes: true)) {
            (_: NoOptions, context: CallContext) in context.source.origin?.description ?? "none"
        },
    ]
}

// MARK: - The page

/// Records what the router sends; counts final replies per id.
final class FuzzPage: Sendable {
    struct State {
        var replies: [String: Int] = [:]
        var scriptReplies: [String: Int] = [:]
        var failEvaluation = false
        var violations: [String] = []
        var activity = 0
    }

    let state = Mutex(State())

    func evaluate(_ script: String) throws {
        let fails = state.withLock { state -> Bool in
            state.activity += 1
            return state.failEvaluation
        }
        if let problem = Self.scriptProblem(script) { note(problem) }
        if fails { throw BridgeError.unavailable("page gone") }
        guard let message = Self.message(inScript: script) else {
            return note("undecodable script: \(script.prefix(200))")
        }
        countIfReply(message)
        if message["kind"] == "reply", case .string(let id)? = message["id"] {
            state.withLock { $0.scriptReplies[id, default: 0] += 1 }
        }
    }

    func replyHandlerAnswered(_ json: String?, allowedIDs: Set<String>) {
        state.withLock { $0.activity += 1 }
        guard let json, !json.isEmpty else { return }
        guard let message = try? BridgeJSON.decode(JSONValue.self, from: Data(json.utf8)) else {
            return note("undecodable reply-handler text: \(json.prefix(200))")
        }
        if case .string(let id)? = message["id"], !allowedIDs.contains(id) {
            note("a reply handler carried id \(id.debugDescription), not one of its message's \(allowedIDs)")
        }
        countIfReply(message)
    }

    func note(_ violation: String) {
        state.withLock { $0.violations.append(violation) }
    }

    private func countIfReply(_ message: JSONValue) {
        guard message["kind"] == "reply", case .string(let id)? = message["id"] else { return }
        state.withLock { $0.replies[id, default: 0] += 1 }
    }

    static func scriptProblem(_ script: String) -> String? {
        if script.unicodeScalars.contains(where: { $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            return "raw U+2028/U+2029 in script"
        }
        let lower = script.lowercased()
        if lower.contains("</script") { return "</script in script" }
        if lower.contains("<!--") { return "<!-- in script" }
        return nil
    }

    /// The message a `PageScript` script hands to `_receive`, decoded strictly: text that
    /// Foundation's decoder refuses is a finding here (BridgeKitTesting's `PageScriptDecoder`,
    /// compiled into this target, reads the argument).
    static func message(inScript script: String) -> JSONValue? {
        guard let text = PageScriptDecoder.argumentText(of: script) else { return nil }
        return try? BridgeJSON.decode(JSONValue.self, from: Data(text.utf8))
    }
}

// MARK: - One conversation

/// How often one reply handler's closure ran.
final class Counter: Sendable {
    let value = Mutex(0)
}

/// Blocks the calling (fuzzer) thread until `operation` finished on the cooperative pool.
func blocking(_ operation: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await operation()
        done.signal()
    }
    done.wait()
}

final class Conversation {
    let router: BridgeRouter
    let page = FuzzPage()
    var handlers: [(handler: ReplyHandler, answers: Counter)] = []
    /// How many posted messages named each id (the router's own scan, and a strict decode).
    var mentions: [String: Int] = [:]
    var mainFrameMentions: [String: Int] = [:]
    var pageCalls: [Task<Void, Never>] = []

    init(_ settings: Settings) {
        let limits =
            settings.smallLimits
            ? BridgeLimits(
                maxPayloadBytes: 2048, maxDepth: 6, maxPendingCalls: 4, maxProgressPerCall: 3, maxUnansweredPageCalls: 2
            )
            : BridgeLimits()
        router = BridgeRouter(
            configuration: BridgeConfiguration(
                policy: .origins(["https://app.example"]), limits: limits,
                defaultTimeout: settings.shortTimeout ? .milliseconds(1) : nil))
        for task in makeTasks() { try? router.register(task) }
        page.state.withLock { $0.failEvaluation = settings.evaluationFails }
        if settings.connected {
            router.connect(PageChannel { [page] script in try page.evaluate(script) })
        }
    }

    func post(_ control: Control, _ bytes: ArraySlice<UInt8>) {
        if control.navigateBefore { router.pageDidCommitNavigation() }
        if control.callPageBefore {
            let router = self.router
            pageCalls.append(Task { _ = try? await router.callPage("h", options: ["x": 1], timeout: .milliseconds(1)) })
        }
        let body = control.body(bytes)
        let ids = Self.ids(in: body)
        for id in ids {
            mentions[id, default: 0] += 1
            if control.source.isMainFrame { mainFrameMentions[id, default: 0] += 1 }
        }
        var handler: ReplyHandler?
        if control.hasReplyHandler {
            let count = Counter()
            let page = self.page
            let made = ReplyHandler { json in
                count.value.withLock { $0 += 1 }
                page.replyHandlerAnswered(json, allowedIDs: ids)
            }
            handlers.append((made, count))
            handler = made
        }
        router.receive(body, from: control.source, replyHandler: handler)
        if control.settleAfter { settle() }
    }

    /// Closes the router and waits until every reply path was answered and nothing moves.
    func finish() {
        let router = self.router
        blocking { await router.close() }
        for call in pageCalls { blocking { await call.value } }
        settle()
        check()
    }

    /// Waits until every reply handler answered and the page saw no activity for a moment; gives
    /// up after `Self.patience` of wall-clock time (a liveness failure, reported by `check()`
    /// apart from a count violation). A wall-clock bound, not a count of polls: under heavy load
    /// a count of short sleeps can end before a starved cooperative thread ran a pending reply.
    func settle() {
        var quiet = 0
        var last = -1
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline {
            let activity = page.state.withLock { $0.activity }
            let unanswered = handlers.contains { !$0.handler.hasReplied }
            if !unanswered, activity == last {
                quiet += 1
                if quiet >= 3 { return }
            } else {
                quiet = 0
            }
            last = activity
            usleep(50)
        }
    }

    /// How long `settle()` waits for the last reply: far beyond any scheduling delay, far below
    /// the time libFuzzer gives one input.
    static let patience = Duration.seconds(60)

    func check() {
        var problems = page.state.withLock { $0.violations }
        for (handler, count) in handlers {
            let answers = count.value.withLock { $0 }
            if answers == 0, !handler.hasReplied {
                problems.append("a reply handler was not answered within \(Self.patience) after close() (liveness)")
            } else if answers != 1 || !handler.hasReplied {
                problems.append("a reply handler was answered \(answers) times")
            }
        }
        let (replies, scriptReplies) = page.state.withLock { ($0.replies, $0.scriptReplies) }
        for (id, count) in replies where count > mentions[id, default: 0] {
            problems.append(
                "id \(id.debugDescription) got \(count) final replies for \(mentions[id, default: 0]) messages")
        }
        for (id, count) in scriptReplies where count > mainFrameMentions[id, default: 0] {
            problems.append(
                "id \(id.debugDescription) got \(count) script replies for \(mainFrameMentions[id, default: 0]) main-frame messages"
            )
        }
        let (calls, pageCalls) = router.state.withLock { ($0.calls.count, $0.pageCalls.count) }
        if calls != 0 || pageCalls != 0 {
            problems.append("after close: \(calls) calls, \(pageCalls) page calls pending")
        }
        guard problems.isEmpty else {
            FileHandle.standardError.write(
                Data(("RouterFuzz invariant violated:\n" + problems.joined(separator: "\n") + "\n").utf8))
            abort()
        }
    }

    /// Every id a body could be answered under: the router's own scan, and a strict decode.
    static func ids(in body: MessageBody) -> Set<String> {
        let text: Data
        switch body {
        case .absent: return []
        case .string(let string): text = Data(string.utf8)
        case .json(let data):
            guard let unwrapped = BridgeRouter.unwrapJSONString(data) else { return [] }
            text = unwrapped
        }
        var ids = Set<String>()
        if let id = text.withUnsafeBytes({ BodyScan($0.bindMemory(to: UInt8.self)).id }) { ids.insert(id) }
        if let object = try? BridgeJSON.decode(JSONValue.self, from: text) {
            for key in ["id", "callbackId"] { if let id = object.string(key) { ids.insert(id) } }
        }
        return ids
    }
}

// MARK: - Entry point

/// The previous conversation, checked once more at the start of the next input so that a late
/// delivery (a task that outlived `settle()`) is still caught.
nonisolated(unsafe) var previous: Conversation?

@_cdecl("LLVMFuzzerTestOneInput")
public func routerFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    previous?.check()
    previous = nil
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let conversation = Conversation(Settings(first))
    for record in bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: true).prefix(32) {
        guard let control = record.first else { continue }
        conversation.post(Control(control), record.dropFirst())
    }
    conversation.finish()
    previous = conversation
    return 0
}
