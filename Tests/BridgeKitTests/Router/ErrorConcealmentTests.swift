import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// An internal error, as a database driver would describe it.
private struct DatabaseError: Error, CustomStringConvertible {
    var description: String { "db password=hunter2 at /var/db" }
}

/// An error written for the page.
private enum CartError: PageFacingError {
    case outOfStock(sku: String)
    case plain

    var pageErrorCode: String {
        switch self {
        case .outOfStock: "out_of_stock"
        case .plain: ""
        }
    }
    var pageErrorMessage: String { "This item is out of stock." }
    var pageErrorDetails: JSONValue? {
        switch self {
        case .outOfStock(let sku): ["sku": .string(sku)]
        case .plain: nil
        }
    }
}

/// A page-facing error with only a message (default code and details).
private struct Refusal: PageFacingError {
    var pageErrorMessage: String { "Not now." }
}

/// A result whose own encoding fails with an internal error.
private struct Unencodable: Encodable, Sendable {
    func encode(to encoder: any Encoder) throws { throw DatabaseError() }
}

/// Options whose own decoding fails with an internal error.
private struct SecretOptions: Decodable, Sendable {
    init(from decoder: any Decoder) throws { throw DatabaseError() }
}

/// Kind of fault: the text of an error thrown by task code reaches the page (issue 20, item 8).
/// A page must get a generic message for any error that is not meant for it (a ``BridgeError``
/// or a ``PageFacingError``); the host's traffic log gets the full description.
@Suite("Errors: a task's internal error text never reaches the page; the log gets it")
struct ErrorConcealmentTests {
    static let secret = "hunter2"

    static func tasks() -> [any BridgeTask] {
        [
            ClosureTask(name: "async") { (_: NoOptions, _: CallContext) -> Int in throw DatabaseError() },
            ClosureTask(name: "immediate", execution: .immediate) { (_: NoOptions, _: CallContext) -> Int in
                throw DatabaseError()
            },
            SynchronousClosureTask(name: "sync") { (_: NoOptions, _: CallContext) -> Int in throw DatabaseError() },
            CallbackTask(name: "callback") { (_: NoOptions, _: CallContext, responder: CallResponder<Int>) in
                responder.fail(DatabaseError())
            },
            ClosureTask(name: "unencodable") { (_: NoOptions, _: CallContext) in Unencodable() },
            SynchronousClosureTask(name: "unencodable-sync") { (_: NoOptions, _: CallContext) in Unencodable() },
            ClosureTask(name: "progress") { (_: NoOptions, context: CallContext) -> Int in
                try await context.progress(Unencodable())  // rethrows the router's error: invalid_result
                return 1
            },
            ClosureTask(name: "options") { (_: SecretOptions, _: CallContext) in 1 },
            ClosureTask(name: "facing") { (_: NoOptions, _: CallContext) -> Int in
                throw CartError.outOfStock(sku: "A-1")
            },
            ClosureTask(name: "facing-plain") { (_: NoOptions, _: CallContext) -> Int in throw CartError.plain },
            ClosureTask(name: "refusal") { (_: NoOptions, _: CallContext) -> Int in throw Refusal() },
            ClosureTask(name: "bridge") { (_: NoOptions, _: CallContext) -> Int in
                throw BridgeError(code: "not_logged_in", message: "Log in first.", details: ["x": 1])
            },
        ]
    }

    @Test(
        "a plain error: task_failed with a generic message, on every path (script and reply handler)",
        arguments: [
            ("async", "task_failed"), ("immediate", "task_failed"), ("sync", "task_failed"),
            ("callback", "task_failed"), ("unencodable", "invalid_result"), ("unencodable-sync", "invalid_result"),
            ("progress", "invalid_result"), ("options", "invalid_options"),
        ])
    func concealed(task: String, code: String) async throws {
        let router = try makeRouter(Self.tasks())
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for (index, replyHandler) in [false, true].enumerated() {
            let id = "\(task)-\(index)"
            let reply = await page.call(task, id: id, replyHandler: replyHandler)
            #expect(reply["error"]?.string("code") == code, "\(reply)")
            let message = try #require(reply["error"]?.string("message"))
            #expect(!message.contains(Self.secret) && !message.contains("/var/db"), "\(message)")
            // The log has the full description, on the reply's record.
            #expect(
                await eventually { log.all.contains { $0.id == id && $0.direction == .outbound && $0.kind == .reply } }
            )
            let record = try #require(log.all.first { $0.id == id && $0.direction == .outbound && $0.kind == .reply })
            #expect(record.outcome == code)
            #expect(record.internalError?.contains("db password=hunter2 at /var/db") == true, "\(record)")
        }
        // Nothing the page received holds the secret.
        #expect(!page.deliveries.contains { $0.text.contains(Self.secret) })
    }

    @Test("fire and forget: nothing to the page; the log's record has the full description")
    func fireAndForget() async throws {
        let router = try makeRouter(Self.tasks())
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("async", fireAndForget: true)
        #expect(await eventually { log.all.contains { $0.outcome == "task_failed" } })
        let record = try #require(log.all.first { $0.outcome == "task_failed" })
        #expect(record.internalError == "db password=hunter2 at /var/db")
        #expect(record.task == "async")
        #expect(!page.deliveries.contains { $0.text.contains(Self.secret) })
    }

    @Test(
        "a PageFacingError brings its code, message and details; a BridgeError passes unchanged; neither is logged as internal"
    )
    func pageFacing() async throws {
        let router = try makeRouter(Self.tasks())
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        let facing = await page.call("facing", id: "f")
        #expect(
            facing["error"] == [
                "code": "out_of_stock", "message": "This item is out of stock.", "details": ["sku": "A-1"],
            ])
        let plain = await page.call("facing-plain", id: "p")
        #expect(plain["error"]?.string("code") == "task_failed")
        #expect(plain["error"]?.string("message") == "This item is out of stock.")
        let refusal = await page.call("refusal", id: "r")
        #expect(refusal["error"] == ["code": "task_failed", "message": "Not now."])
        let bridge = await page.call("bridge", id: "b")
        #expect(bridge["error"] == ["code": "not_logged_in", "message": "Log in first.", "details": ["x": 1]])
        #expect(await eventually { log.all.filter { $0.kind == .reply }.count == 4 })
        #expect(log.all.allSatisfy { $0.internalError == nil })
    }

    @Test("BridgeError is a PageFacingError with its own code, message and details")
    func bridgeErrorConforms() {
        let error: any PageFacingError = BridgeError(code: "c", message: "m", details: ["k": 1])
        #expect(error.pageErrorCode == "c" && error.pageErrorMessage == "m" && error.pageErrorDetails == ["k": 1])
    }

    @Test(
        "a task error with the code \"ok\" (the log's word for a success) reaches the page as task_failed, with its message; the log keeps the code"
    )
    func reservedCode() async throws {
        struct Facing: PageFacingError {
            var pageErrorCode: String { "ok" }
            var pageErrorMessage: String { "Card declined." }
        }
        let router = try makeRouter([
            ClosureTask(name: "bridge") { (_: NoOptions, _: CallContext) -> Int in
                throw BridgeError(code: "ok", message: "Card declined.")
            },
            ClosureTask(name: "facing") { (_: NoOptions, _: CallContext) -> Int in throw Facing() },
        ])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for task in ["bridge", "facing"] {
            let reply = await page.call(task, id: task)
            #expect(reply["error"] == ["code": "task_failed", "message": "Card declined."], "\(task): \(reply)")
        }
        #expect(await eventually { log.all.filter { $0.kind == .reply }.count == 2 })
        let replies = log.all.filter { $0.kind == .reply }
        #expect(replies.allSatisfy { $0.outcome == "task_failed" && $0.internalError?.contains("\"ok\"") == true })
    }
}
