public import BridgeKit
import Foundation

/// A page for unit tests: posts calls to a router as `js/webbridge.js` would, and records every
/// script and structured reply the router sends back.
///
/// ```swift
/// import BridgeKit
/// import BridgeKitTesting
///
/// let router = BridgeRouter(configuration: .init(policy: .origins(["https://app.example"])))
/// try router.register(MyTask())
/// let page = InMemoryPage(router: router)
/// let reply = await page.call("MyTask", options: ["name": "Ada"])
/// #expect(reply["ok"] == true)
/// let typed = try await page.call("MyTask", options: MyOptions(name: "Ada"), as: MyResult.self)
/// ```
///
/// **The page's origin is `https://app.example` unless you pass `origin:`.** The router's policy
/// must allow it (as above), or every call is refused with `forbidden`.
///
/// Every ``call(_:options:id:from:replyHandler:timeLimit:)`` settles: a call the router refuses
/// (`forbidden`) returns the refusal whatever the reply route, and a call with no final reply
/// within its time limit (``defaultTimeLimit``, 10 seconds) returns a failed reply with the code
/// `test_time_limit` whose message names the task, the id and the page's origin.
///
/// Thread safety: `Sendable`; all methods may be used from any task.
public final class InMemoryPage: Sendable {
    /// One thing the router sent to the page.
    public struct Delivery: Sendable, Hashable {
        /// How it arrived.
        public enum Path: String, Sendable, Hashable {
            /// As a script evaluated in the main frame.
            case script
            /// Through a message's reply handler.
            case replyHandler
        }
        /// How it arrived.
        public var path: Path
        /// The script text (for ``Path/script``) or the reply JSON text.
        public var text: String
        /// The decoded message, `nil` for an acknowledgement without data.
        public var message: JSONValue?
        /// The page generation current when it arrived.
        public var generation: UInt64
    }

    private struct State {
        var deliveries: [Delivery] = []
        var nextID = 0
        var generation: UInt64 = 0
        var waiters: [Waiter] = []
        var nextToken = 0
        var expiredTokens: Set<Int> = []
        var failEvaluation = false
        /// The page's calls with an id that have no final reply yet.
        var openCalls: Set<String> = []
        /// The final replies ``navigate()`` gave the calls of replaced documents, by id.
        var endedByNavigation: [String: JSONValue] = [:]
    }

    private struct Waiter {
        var id: String
        var token: Int
        var continuation: CheckedContinuation<JSONValue, Never>
    }

    /// The time limit of a call when none is given: 10 seconds.
    public static let defaultTimeLimit: Duration = .seconds(10)

    /// The error code of the failed reply that ``call(_:options:id:from:replyHandler:timeLimit:)``
    /// returns when its time limit passes: `"test_time_limit"`.
    public static let timeLimitErrorCode = "test_time_limit"

    /// The router under test. Held strongly, like a web view's owner would.
    public let router: BridgeRouter
    /// The source used by ``call(_:options:id:from:replyHandler:timeLimit:)`` when none is given:
    /// the main frame of the `origin` passed to ``init(router:origin:)``.
    public let defaultSource: MessageSource
    private let state = Locked(State())

    /// Creates a page and connects it to `router`.
    ///
    /// The page's channel is an evaluate function (``PageChannel/init(evaluate:evaluateForDocument:)``), the form the
    /// shipped adapters connect: a script reaches the page when the router's Swift task evaluating
    /// it runs.
    /// - Parameters:
    ///   - router: the router under test; the page connects its channel to it.
    ///   - origin: the origin of the page's main frame; default `https://app.example`. The
    ///     router's policy must allow it, or every call is refused with `forbidden`.
    public init(router: BridgeRouter, origin: String = "https://app.example") {
        self.router = router
        self.defaultSource = .mainFrame(origin)
        router.connect(
            PageChannel { [weak self] script in
                try self?.evaluate(script)
            })
    }

    // MARK: Posting

    /// Posts a call and waits for its final reply, at most `timeLimit`.
    ///
    /// The call always settles. A refusal (`forbidden`, for example because the router's policy
    /// does not allow this page's origin) is returned whatever the reply route: without
    /// `replyHandler`, the message carries a reply path of the test kit's own that reports only
    /// refusals (which a real page without a reply handler never receives) and is not recorded
    /// otherwise. When `timeLimit` passes first, the call is cancelled and the result is a failed
    /// reply with the code ``timeLimitErrorCode`` whose message names the task, the id and the
    /// page's origin.
    /// - Parameters:
    ///   - task: the task name.
    ///   - options: the options; `nil` leaves the member out.
    ///   - id: the call id; default a fresh `"t-<n>"`.
    ///   - source: the sending frame; default the main frame of this page's origin.
    ///   - replyHandler: whether the message carries a structured reply path (as WebKitGTK's
    ///     relay and `WKScriptMessageHandlerWithReply` do).
    ///   - timeLimit: how long to wait for the final reply; default ``defaultTimeLimit``
    ///     (10 seconds); `nil` waits for ever.
    /// - Returns: the final reply message (`{"v":1,"kind":"reply","id":…,"ok":…}`).
    @discardableResult
    public func call(
        _ task: String, options: JSONValue? = nil, id: String? = nil, from source: MessageSource? = nil,
        replyHandler: Bool = false, timeLimit: Duration? = InMemoryPage.defaultTimeLimit
    ) async -> JSONValue {
        let callID = id ?? makeID()
        let sender = source ?? defaultSource
        open(callID)
        return await wait(for: callID, task: task, source: sender, timeLimit: timeLimit) {
            self.post(
                body: self.body(self.envelope(task, options: options, id: callID)), from: sender,
                replyHandler: replyHandler, witnessesRefusals: !replyHandler)
        }
    }

    /// Posts a call with typed options and decodes its result.
    ///
    /// ```swift
    /// let total = try await page.call("cart.add", options: AddToCart.Options(sku: "A-1"), as: Int.self)
    /// ```
    /// - Parameters:
    ///   - task: the task name.
    ///   - options: the options, encoded with ``BridgeJSON``.
    ///   - type: the type of the reply's `data`.
    ///   - id: the call id; default a fresh `"t-<n>"`.
    ///   - source: the sending frame; default the main frame of this page's origin.
    ///   - replyHandler: whether the message carries a structured reply path.
    ///   - timeLimit: how long to wait; see ``call(_:options:id:from:replyHandler:timeLimit:)``.
    /// - Returns: the reply's `data` (JSON `null` when it has none) decoded as `Result`.
    /// - Throws: the ``BridgeError`` of a failed reply (including a `forbidden` refusal and the
    ///   ``timeLimitErrorCode`` failure), or the error of encoding the options or decoding the
    ///   result.
    public func call<Result: Decodable>(
        _ task: String, options: some Encodable, as type: Result.Type, id: String? = nil,
        from source: MessageSource? = nil, replyHandler: Bool = false,
        timeLimit: Duration? = InMemoryPage.defaultTimeLimit
    ) async throws -> Result {
        let encoded = try BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(options))
        let reply = await call(
            task, options: encoded, id: id, from: source, replyHandler: replyHandler, timeLimit: timeLimit)
        return try Self.result(of: reply, as: type)
    }

    /// Posts a call without options and decodes its result; see
    /// ``call(_:options:as:id:from:replyHandler:timeLimit:)``.
    /// - Throws: the ``BridgeError`` of a failed reply, or the error of decoding the result.
    public func call<Result: Decodable>(
        _ task: String, as type: Result.Type, id: String? = nil,
        from source: MessageSource? = nil, replyHandler: Bool = false,
        timeLimit: Duration? = InMemoryPage.defaultTimeLimit
    ) async throws -> Result {
        let reply = await call(
            task, options: nil, id: id, from: source, replyHandler: replyHandler, timeLimit: timeLimit)
        return try Self.result(of: reply, as: type)
    }

    /// The `data` of a successful final reply decoded as `Result`.
    /// - Throws: the ``BridgeError`` of a failed reply, or the decoding error.
    public static func result<Result: Decodable>(of reply: JSONValue, as type: Result.Type) throws -> Result {
        guard reply["ok"] == true else {
            if let error = reply["error"],
                let decoded = try? BridgeJSON.decode(BridgeError.self, from: BridgeJSON.encode(error))
            {
                throw decoded
            }
            throw BridgeError(code: "invalid_message", message: "Not a final reply: \(reply)")
        }
        return try BridgeJSON.decode(type, from: BridgeJSON.encode(reply["data"] ?? .null))
    }

    /// Posts a call without waiting; returns its id (`nil` for fire-and-forget when `id` is `nil`
    /// and `fireAndForget` is true).
    @discardableResult
    public func send(
        _ task: String, options: JSONValue? = nil, id: String? = nil, fireAndForget: Bool = false,
        from source: MessageSource? = nil, replyHandler: Bool = false
    ) -> String? {
        let callID = fireAndForget ? nil : (id ?? makeID())
        if let callID { open(callID) }
        post(envelope(task, options: options, id: callID), from: source, replyHandler: replyHandler)
        return callID
    }

    /// Waits for the final reply to call `id` (returns at once if it already arrived, or if
    /// ``navigate()`` ended the call `navigated`), at most `timeLimit`; then returns a failed reply
    /// with the code ``timeLimitErrorCode`` (the call is not cancelled).
    /// - Parameters:
    ///   - id: the call id.
    ///   - timeLimit: how long to wait; default ``defaultTimeLimit`` (10 seconds); `nil` waits
    ///     for ever.
    public func reply(for id: String, timeLimit: Duration? = InMemoryPage.defaultTimeLimit) async -> JSONValue {
        await wait(
            for: id, task: nil, source: defaultSource, timeLimit: timeLimit, cancels: false, acceptsEarlier: true,
            then: nil)
    }

    /// Posts a cancel for call `id`.
    /// - Parameters:
    ///   - id: the call id.
    ///   - timedOut: sends `"reason": "timeout"`, as the shim does when the call's own time limit
    ///     passed; the router then settles the call `timeout` instead of `cancelled`.
    ///   - source: the sending frame; `nil` for the page's default source.
    public func cancel(_ id: String, timedOut: Bool = false, from source: MessageSource? = nil) {
        var message: [String: JSONValue] = ["v": 1, "kind": "cancel", "id": .string(id)]
        if timedOut { message["reason"] = "timeout" }
        post(.object(message), from: source)
    }

    /// Answers a native-to-page call, as a `WebBridge.handle` handler would.
    public func answer(_ id: String, data: JSONValue) {
        post(["v": 1, "kind": "reply", "id": .string(id), "ok": true, "data": data], from: nil)
    }

    /// Fails a native-to-page call with `code`.
    public func fail(_ id: String, code: String, message: String = "failed") {
        post(
            [
                "v": 1, "kind": "reply", "id": .string(id), "ok": false,
                "error": ["code": .string(code), "message": .string(message)],
            ], from: nil)
    }

    /// Posts any JSON value as a message body, encoded as the shim does (a JSON string).
    public func post(_ message: JSONValue, from source: MessageSource? = nil, replyHandler: Bool = false) {
        post(body: body(message), from: source, replyHandler: replyHandler)
    }

    /// Posts a raw body, exactly as an engine would hand it to the host.
    public func post(body: MessageBody, from source: MessageSource? = nil, replyHandler: Bool = false) {
        post(body: body, from: source, replyHandler: replyHandler, witnessesRefusals: false)
    }

    // MARK: Page lifecycle

    /// Simulates a committed navigation to a new document: the router is told
    /// (``BridgeRouter/pageDidCommitNavigation()``), and later deliveries are recorded with the new
    /// generation. A navigation that never commits needs no call: nothing changes for the page.
    ///
    /// The old document's calls that had no final reply end as the shim ends them: with a failed
    /// reply `navigated` (``navigatedErrorCode``), which ``reply(for:timeLimit:)`` returns and
    /// which is not a delivery (the router sends nothing to a replaced document).
    public func navigate() {
        let ended: [(CheckedContinuation<JSONValue, Never>, JSONValue)] = state.withLock { state in
            state.generation += 1
            var resumed: [(CheckedContinuation<JSONValue, Never>, JSONValue)] = []
            for id in state.openCalls {
                let reply = Self.navigatedReply(id: id)
                state.endedByNavigation[id] = reply
                resumed += state.waiters.filter { $0.id == id }.map { ($0.continuation, reply) }
                state.waiters.removeAll { $0.id == id }
            }
            state.openCalls.removeAll()
            return resumed
        }
        router.pageDidCommitNavigation()
        for (continuation, reply) in ended { continuation.resume(returning: reply) }
    }

    /// The error code of the reply ``navigate()`` ends a replaced document's calls with:
    /// `"navigated"`, as the shim's.
    public static let navigatedErrorCode = "navigated"

    private static func navigatedReply(id: String) -> JSONValue {
        [
            "v": 1, "kind": "reply", "id": .string(id), "ok": false,
            "error": ["code": .string(navigatedErrorCode), "message": "The page changed while the call was pending."],
        ]
    }

    private func open(_ id: String) {
        state.withLock { state in
            state.openCalls.insert(id)
            state.endedByNavigation[id] = nil
        }
    }

    /// Makes every later script evaluation fail (the page is gone), or succeed again.
    public func setEvaluationFails(_ fails: Bool) {
        state.withLock { $0.failEvaluation = fails }
    }

    // MARK: Records

    /// Everything delivered so far, in order.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    /// The scripts evaluated so far, in order.
    public var scripts: [String] { deliveries.filter { $0.path == .script }.map(\.text) }
    /// The decoded messages delivered so far (scripts and reply handlers), in order.
    public var messages: [JSONValue] { deliveries.compactMap(\.message) }
    /// The delivered messages for call `id` (progress and replies), in order.
    public func messages(for id: String) -> [JSONValue] {
        messages.filter { $0["id"] == .string(id) }
    }

    // MARK: Internals

    private func body(_ message: JSONValue) -> MessageBody {
        .string((try? BridgeJSON.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "null")
    }

    /// Posts `body`; with `witnessesRefusals` and no `replyHandler`, through a reply path that
    /// records only a refusal (the router answers a refused sender only through a reply path).
    private func post(body: MessageBody, from source: MessageSource?, replyHandler: Bool, witnessesRefusals: Bool) {
        let handler: ReplyHandler?
        if replyHandler {
            handler = ReplyHandler { [weak self] json in self?.recordReply(json) }
        } else if witnessesRefusals {
            handler = ReplyHandler { [weak self] json in self?.recordRefusal(json) }
        } else {
            handler = nil
        }
        router.receive(body, from: source ?? defaultSource, replyHandler: handler)
    }

    /// Registers a waiter for the final reply to `id` (or, with `acceptsEarlier`, takes one that
    /// already arrived, under the same lock), runs `post`, and waits at most `timeLimit`.
    private func wait(
        for id: String, task: String?, source: MessageSource, timeLimit: Duration?, cancels: Bool = true,
        acceptsEarlier: Bool = false, then post: (@Sendable () -> Void)?
    ) async -> JSONValue {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        let timer = timeLimit.map { limit in
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                if Task.isCancelled { return }
                self?.expire(token, id: id, task: task, source: source, limit: limit, cancels: cancels)
            }
        }
        defer { timer?.cancel() }
        return await withCheckedContinuation { continuation in
            enum Registration {
                case waiting, expired
                case arrived(JSONValue)
            }
            let registration: Registration = state.withLock { state in
                if acceptsEarlier,
                    let found = state.deliveries.lazy.compactMap(\.message).first(where: { Self.isReply($0, to: id) })
                {
                    return .arrived(found)
                }
                if let ended = state.endedByNavigation[id] { return .arrived(ended) }
                if state.expiredTokens.remove(token) != nil { return .expired }
                state.waiters.append(Waiter(id: id, token: token, continuation: continuation))
                return .waiting
            }
            switch registration {
            case .arrived(let reply):
                continuation.resume(returning: reply)
            case .expired:
                continuation.resume(
                    returning: timeLimitReply(id: id, task: task, source: source, limit: timeLimit ?? .zero))
            case .waiting:
                post?()
            }
        }
    }

    private func expire(_ token: Int, id: String, task: String?, source: MessageSource, limit: Duration, cancels: Bool)
    {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.token == token }) else {
                state.expiredTokens.insert(token)
                return nil
            }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        if cancels { cancel(id, from: source) }
        waiter.continuation.resume(returning: timeLimitReply(id: id, task: task, source: source, limit: limit))
    }

    private func timeLimitReply(id: String, task: String?, source: MessageSource, limit: Duration) -> JSONValue {
        let origin = source.origin?.description ?? "an opaque origin"
        let call = task.map { "call \"\(id)\" of task \"\($0)\"" } ?? "call \"\(id)\""
        // A call that got progress was admitted: its origin is not the question. (Only progress
        // counts: the cancel this page posts as it gives up may already have its reply.)
        let admitted = messages(for: id).contains { $0["kind"] == "progress" }
        let message =
            admitted
            ? "InMemoryPage: \(call) got progress but no final reply within \(limit): the task did not finish in time."
            : "InMemoryPage: \(call) got no final reply within \(limit), from the page's origin \(origin). "
                + "InMemoryPage's default origin is https://app.example: pass `origin:` to InMemoryPage(router:origin:) "
                + "or allow the origin in the router's policy; otherwise the task did not finish in time."
        var details: [String: JSONValue] = ["id": .string(id), "origin": .string(origin)]
        if let task { details["task"] = .string(task) }
        let error = BridgeError(code: Self.timeLimitErrorCode, message: message, details: .object(details))
        let errorValue =
            (try? BridgeJSON.decode(JSONValue.self, from: BridgeJSON.encode(error)))
            ?? ["code": .string(Self.timeLimitErrorCode), "message": .string(message)]
        return ["v": 1, "kind": "reply", "id": .string(id), "ok": false, "error": errorValue]
    }

    private func makeID() -> String {
        state.withLock { state in
            state.nextID += 1
            return "t-\(state.nextID)"
        }
    }

    private func envelope(_ task: String, options: JSONValue?, id: String?) -> JSONValue {
        var members: [String: JSONValue] = ["v": 1, "kind": "call", "task": .string(task)]
        if let id { members["id"] = .string(id) }
        if let options { members["options"] = options }
        return .object(members)
    }

    private func evaluate(_ script: String) throws {
        if state.withLock({ $0.failEvaluation }) { throw BridgeError.unavailable("The test page is gone.") }
        record(Delivery(path: .script, text: script, message: PageScriptDecoder.message(in: script), generation: 0))
    }

    private func recordReply(_ json: String?) {
        let message = json.flatMap(DeliveredMessage.decode)
        record(Delivery(path: .replyHandler, text: json ?? "", message: message, generation: 0))
    }

    private func recordRefusal(_ json: String?) {
        guard let message = json.flatMap(DeliveredMessage.decode),
            message["kind"] == "reply", message["ok"] == false, message["error"]?["code"] == "forbidden"
        else { return }
        record(Delivery(path: .replyHandler, text: json ?? "", message: message, generation: 0))
    }

    private func record(_ delivery: Delivery) {
        let resumed: [CheckedContinuation<JSONValue, Never>] = state.withLock { state in
            var delivery = delivery
            delivery.generation = state.generation
            state.deliveries.append(delivery)
            guard let message = delivery.message, message["kind"] == "reply", case .string(let id)? = message["id"]
            else { return [] }
            state.openCalls.remove(id)
            let matching = state.waiters.filter { $0.id == id }.map(\.continuation)
            state.waiters.removeAll { $0.id == id }
            return matching
        }
        if let message = delivery.message {
            for continuation in resumed { continuation.resume(returning: message) }
        }
    }

    private static func isReply(_ message: JSONValue, to id: String) -> Bool {
        message["kind"] == "reply" && message["id"] == .string(id)
    }
}
