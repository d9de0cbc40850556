public import BridgeKit
import Foundation
import Synchronization

/// A page for unit tests: posts calls to a router as `js/webbridge.js` would, and records every
/// script and structured reply the router sends back.
///
/// ```swift
/// let router = BridgeRouter(configuration: .init(policy: .origins(["https://app.example"])))
/// try router.register(MyTask())
/// let page = InMemoryPage(router: router)
/// let reply = await page.call("MyTask", options: ["name": "Ada"])
/// #expect(reply["ok"] == true)
/// ```
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
        var waiters: [(id: String, continuation: CheckedContinuation<JSONValue, Never>)] = []
        var failEvaluation = false
    }

    /// The router under test. Held strongly, like a web view's owner would.
    public let router: BridgeRouter
    /// The source used by ``call(_:options:id:from:replyHandler:)`` when none is given.
    public let defaultSource: MessageSource
    private let state = Mutex(State())

    /// How the page's channel evaluates scripts (``PageChannel``'s two forms).
    public enum ChannelForm: Sendable {
        /// The engines' completion-handler form (``PageChannel/init(post:)``), as WKWebView's
        /// `evaluateJavaScript(_:completionHandler:)` and WebKitGTK offer it.
        case completionHandler
        /// An `async` evaluate function (``PageChannel/init(evaluate:)``).
        case async
    }

    /// Creates a page and connects it to `router`.
    /// - Parameters:
    ///   - origin: the origin of the page's main frame.
    ///   - channel: the form of the page channel; default ``ChannelForm/completionHandler``.
    public init(router: BridgeRouter, origin: String = "https://app.example", channel: ChannelForm = .completionHandler) {
        self.router = router
        self.defaultSource = .mainFrame(origin)
        switch channel {
        case .completionHandler:
            router.connect(PageChannel { [weak self] script, completion in
                do {
                    try self?.evaluate(script)
                    completion(nil)
                } catch {
                    completion(error)
                }
            })
        case .async:
            router.connect(PageChannel { [weak self] script in
                try self?.evaluate(script)
            })
        }
    }

    // MARK: Posting

    /// Posts a call and waits for its final reply.
    /// - Parameters:
    ///   - task: the task name.
    ///   - options: the options; `nil` leaves the member out.
    ///   - id: the call id; default a fresh `"t-<n>"`.
    ///   - source: the sending frame; default the main frame of this page's origin.
    ///   - replyHandler: whether the message carries a structured reply path (as WebKitGTK's
    ///     relay and `WKScriptMessageHandlerWithReply` do).
    /// - Returns: the final reply message (`{"v":1,"kind":"reply","id":…,"ok":…}`).
    @discardableResult
    public func call(_ task: String, options: JSONValue? = nil, id: String? = nil, from source: MessageSource? = nil,
                     replyHandler: Bool = false) async -> JSONValue {
        let callID = id ?? makeID()
        return await withCheckedContinuation { continuation in
            state.withLock { $0.waiters.append((callID, continuation)) }
            post(envelope(task, options: options, id: callID), from: source, replyHandler: replyHandler)
        }
    }

    /// Posts a call without waiting; returns its id (`nil` for fire-and-forget when `id` is `nil`
    /// and `fireAndForget` is true).
    @discardableResult
    public func send(_ task: String, options: JSONValue? = nil, id: String? = nil, fireAndForget: Bool = false,
                     from source: MessageSource? = nil, replyHandler: Bool = false) -> String? {
        let callID = fireAndForget ? nil : (id ?? makeID())
        post(envelope(task, options: options, id: callID), from: source, replyHandler: replyHandler)
        return callID
    }

    /// Waits for the final reply to call `id` (returns at once if it already arrived).
    public func reply(for id: String) async -> JSONValue {
        await withCheckedContinuation { continuation in
            let existing: JSONValue? = state.withLock { state in
                if let found = state.deliveries.lazy.compactMap(\.message).first(where: { Self.isReply($0, to: id) }) {
                    return found
                }
                state.waiters.append((id, continuation))
                return nil
            }
            if let existing { continuation.resume(returning: existing) }
        }
    }

    /// Posts a cancel for call `id`.
    public func cancel(_ id: String, from source: MessageSource? = nil) {
        post(["v": 1, "kind": "cancel", "id": .string(id)], from: source)
    }

    /// Answers a native-to-page call, as a `WebBridge.handle` handler would.
    public func answer(_ id: String, data: JSONValue) {
        post(["v": 1, "kind": "reply", "id": .string(id), "ok": true, "data": data], from: nil)
    }

    /// Fails a native-to-page call with `code`.
    public func fail(_ id: String, code: String, message: String = "failed") {
        post(["v": 1, "kind": "reply", "id": .string(id), "ok": false,
              "error": ["code": .string(code), "message": .string(message)]], from: nil)
    }

    /// Posts any JSON value as a message body, encoded as the shim does (a JSON string).
    public func post(_ message: JSONValue, from source: MessageSource? = nil, replyHandler: Bool = false) {
        let text = (try? BridgeJSON.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        post(body: .string(text), from: source, replyHandler: replyHandler)
    }

    /// Posts a raw body, exactly as an engine would hand it to the host.
    public func post(body: MessageBody, from source: MessageSource? = nil, replyHandler: Bool = false) {
        let handler = replyHandler ? ReplyHandler { [weak self] json in self?.recordReply(json) } : nil
        router.receive(body, from: source ?? defaultSource, replyHandler: handler)
    }

    // MARK: Page lifecycle

    /// Simulates a committed navigation to a new document: the router is told
    /// (``BridgeRouter/pageDidCommitNavigation()``), and later deliveries are recorded with the new
    /// generation. A navigation that never commits needs no call: nothing changes for the page.
    public func navigate() {
        state.withLock { $0.generation += 1 }
        router.pageDidCommitNavigation()
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
        let message = json.flatMap { try? BridgeJSON.decode(JSONValue.self, from: Data($0.utf8)) }
        record(Delivery(path: .replyHandler, text: json ?? "", message: message, generation: 0))
    }

    private func record(_ delivery: Delivery) {
        let resumed: [CheckedContinuation<JSONValue, Never>] = state.withLock { state in
            var delivery = delivery
            delivery.generation = state.generation
            state.deliveries.append(delivery)
            guard let message = delivery.message, message["kind"] == "reply", case .string(let id)? = message["id"] else { return [] }
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
