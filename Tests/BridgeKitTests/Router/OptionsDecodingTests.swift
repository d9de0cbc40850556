import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: work moved to another place changes what the page sees. An asynchronous
/// task's options are decoded by the call's work (on the thread that runs the task), not when the
/// message arrives; a call whose options fail to decode there must fail with the same code,
/// message and path as one refused on arrival (a synchronous task's, decoded on the calling
/// thread), and a concurrent task must not decode on the delivering thread (the main thread of
/// an app, where a large payload would hold up the page's other messages).
@Suite("Options are decoded where the task runs, with the same errors as on arrival", .serialized)
struct OptionsDecodingTests {
    /// Options that record the thread that decoded them.
    struct Probe: Decodable, Sendable {
        static let decodedOn = Mutex<pthread_t?>(nil)

        init(from decoder: any Decoder) throws {
            Self.decodedOn.withLock { $0 = pthread_self() }
        }
    }

    struct ProbeTask: BridgeTask {
        let name: String
        let execution: TaskExecution
        func run(_ options: Probe, context: CallContext) async throws -> Bool { true }
    }

    struct ProbeSyncTask: SynchronousBridgeTask {
        let name = "probe-sync"
        func runSynchronously(_ options: Probe, context: CallContext) throws -> Bool { true }
    }

    /// Sends a call of `task` from a thread of its own and returns that thread and the thread
    /// the options were decoded on.
    static func decodingThread(task: String, router: BridgeRouter) async -> (caller: pthread_t?, decoder: pthread_t?) {
        Probe.decodedOn.withLock { $0 = nil }
        let page = InMemoryPage(router: router)
        let caller = Locked<pthread_t?>(nil)
        // The calling thread lives until the reply is in: a thread that has ended can have its
        // `pthread_t` reused by a new worker thread, which would then look like the caller.
        let replied = DispatchSemaphore(value: 0)
        let thread = Thread {
            caller.set(pthread_self())
            page.send(task, options: [:], id: "p")
            replied.wait()
        }
        thread.start()
        #expect(await page.reply(for: "p")["ok"] == true)
        let decoder = Probe.decodedOn.withLock { $0 }
        replied.signal()
        return (caller.value, decoder)
    }

    @Test("a concurrent task decodes its options off the delivering thread")
    func concurrentOffThread() async throws {
        let router = try makeRouter([ProbeTask(name: "probe", execution: .concurrent)])
        let (caller, decoder) = await Self.decodingThread(task: "probe", router: router)
        let both = try #require(caller.flatMap { caller in decoder.map { (caller, $0) } })
        #expect(pthread_equal(both.0, both.1) == 0)
    }

    @Test("immediate and synchronous tasks decode on the delivering thread, where they start")
    func inPlaceOnThread() async throws {
        let router = try makeRouter([ProbeTask(name: "probe-now", execution: .immediate), ProbeSyncTask()])
        for task in ["probe-now", "probe-sync"] {
            let (caller, decoder) = await Self.decodingThread(task: task, router: router)
            let both = try #require(caller.flatMap { caller in decoder.map { (caller, $0) } })
            #expect(pthread_equal(both.0, both.1) != 0, "\(task)")
        }
    }

    // MARK: Errors

    struct Shape: Codable, Sendable {
        struct Item: Codable, Sendable { let name: String }
        let count: Int
        let items: [Item]?
    }

    struct ShapeTask: BridgeTask {
        let name: String
        let execution: TaskExecution
        func run(_ options: Shape, context: CallContext) async throws -> Int { options.count }
    }

    struct ShapeSyncTask: SynchronousBridgeTask {
        let name = "shape-sync"
        func runSynchronously(_ options: Shape, context: CallContext) throws -> Int { options.count }
    }

    struct RawTask: BridgeTask {
        let name: String
        let execution: TaskExecution
        func run(_ options: RawJSON, context: CallContext) async throws -> RawJSON { options }
    }

    struct RawSyncTask: SynchronousBridgeTask {
        let name = "raw-sync"
        func runSynchronously(_ options: RawJSON, context: CallContext) throws -> RawJSON { options }
    }

    /// `options` members (JSON text, or `nil` for none) that a plain envelope carries but that do
    /// not decode: a wrong type (at a path, at the top), a missing member, text that is not JSON
    /// (the envelope scan skips it unread), and nothing at all.
    static let badOptions: [String?] = [
        #"{"count":"seven"}"#,
        #"{"count":1,"items":[{"name":"a"},{"name":2}]}"#,
        #"{}"#,
        #"{"count":tru}"#,
        "[1,2]",
        "null",
        nil,
    ]

    static func body(task: String, options: String?) -> MessageBody {
        .string(
            #"{"v":1,"kind":"call","id":"e","task":"\#(task)""# + (options.map { #","options":"# + $0 } ?? "") + "}")
    }

    /// The final reply to `options` sent to `task`, without its `data`.
    static func reply(task: String, options: String?, router: BridgeRouter) async -> JSONValue {
        let page = InMemoryPage(router: router)
        page.post(body: body(task: task, options: options))
        var reply = await page.reply(for: "e")
        if case .object(var members) = reply {
            members["data"] = nil
            reply = .object(members)
        }
        return reply
    }

    @Test(
        "typed options: an asynchronous task's decoding error equals the one reported on arrival",
        arguments: badOptions)
    func typedErrors(options: String?) async throws {
        let router = try makeRouter([
            ShapeTask(name: "shape", execution: .concurrent),
            ShapeTask(name: "shape-now", execution: .immediate), ShapeSyncTask(),
        ])
        let onArrival = await Self.reply(task: "shape-sync", options: options, router: router)
        #expect(onArrival["ok"] == false)
        for task in ["shape", "shape-now"] {
            #expect(await Self.reply(task: task, options: options, router: router) == onArrival, "\(task)")
        }
    }

    @Test("RawJSON options the strict check refuses: the same reply from an asynchronous task as on arrival")
    func rawErrors() async throws {
        let router = try makeRouter([
            RawTask(name: "raw", execution: .concurrent),
            RawTask(name: "raw-now", execution: .immediate), RawSyncTask(),
        ])
        // Not JSON at all, and a trailing comma: Foundation's decoder forgives it, but a body is
        // JSON by RFC 8259 on every path (issue 20, item 10), so it is refused everywhere.
        for (options, ok) in [(#"{"a":tru}"#, false), (#"{"a" 1}"#, false), ("[1,]", false)] {
            let onArrival = await Self.reply(task: "raw-sync", options: options, router: router)
            #expect(onArrival["ok"] == .bool(ok), "\(options)")
            for task in ["raw", "raw-now"] {
                #expect(
                    await Self.reply(task: task, options: options, router: router) == onArrival, "\(task) \(options)")
            }
        }
    }
}

/// Kind of fault: a call whose options do not decode was refused on arrival with
/// `invalid_options`, before admission; with the options decoded by the call's work, a refusal at
/// admission (its id in use, too many pending calls) must still name the options' error.
@Suite("A refused call with undecodable options still gets invalid_options")
struct RefusedOptionsTests {
    @Test(
        "an id in use, or no pending slot left: invalid_options when the options do not decode",
        arguments: [TaskExecution.concurrent, .immediate])
    func refusedWithBadOptions(execution: TaskExecution) async throws {
        let gates = Gates()
        let wait = ClosureTask(name: "wait", execution: execution) { (_: NoOptions, context: CallContext) -> Int in
            await gates.wait(context.callID ?? "")
            return 1
        }
        let echo = ClosureTask(name: "echo", execution: execution) { (value: Int, _: CallContext) in value }
        let router = try makeRouter([wait, echo], limits: BridgeLimits(maxPendingCalls: 1))
        let page = InMemoryPage(router: router)
        page.send("wait", id: "w")
        #expect(await settle { gates.waitingCount == 1 })
        // The same id, and no slot left: both refusals name the options' error first.
        let sameID = await page.call("echo", options: "bad", id: "w")
        #expect(sameID["error"]?.string("code") == "invalid_options")
        let noSlot = await page.call("echo", options: "bad", id: "x")
        #expect(noSlot["error"]?.string("code") == "invalid_options")
        // Options that decode keep the admission's own refusal.
        #expect(await page.call("echo", options: 1, id: "y")["error"]?.string("code") == "too_many_pending_calls")
        gates.release("w")
        #expect(await settle { page.messages(for: "w").count == 2 })
    }
}

/// Kind of fault: an error message reproduced by decoding again. Options that do not decode were
/// decoded a second time (the whole body, the general way) to reproduce the error a call decoded
/// on arrival got, and a synchronous task's a third time; a type whose decoding has effects (or
/// costs) saw each. Issue 21, item 4: one decoder, every admission case decodes options once.
@Suite("Options that do not decode are decoded once, in every admission case", .serialized)
struct OptionsDecodedOnceTests {
    /// Options that count their decodings and always fail.
    struct Counted: Decodable, Sendable {
        static let decodings = Mutex(0)

        init(from decoder: any Decoder) throws {
            Self.decodings.withLock { $0 += 1 }
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "never"))
        }
    }

    struct CountedTask: BridgeTask {
        let name: String
        let execution: TaskExecution
        func run(_ options: Counted, context: CallContext) async throws -> Int { 1 }
    }

    struct CountedSyncTask: SynchronousBridgeTask {
        let name = "counted-sync"
        func runSynchronously(_ options: Counted, context: CallContext) throws -> Int { 1 }
    }

    static func body(_ task: String, _ id: String?) -> MessageBody {
        .string(
            #"{"v":1,"kind":"call","# + (id.map { #""id":""# + $0 + #"","# } ?? "") + #""task":""# + task
                + #"","options":{"a":1}}"#)
    }

    @Test("asynchronous, immediate, synchronous, fire-and-forget and general-path calls: one decoding each")
    func oncePerCall() async throws {
        let router = try makeRouter([
            CountedTask(name: "counted", execution: .concurrent),
            CountedTask(name: "counted-now", execution: .immediate), CountedSyncTask(),
        ])
        let page = InMemoryPage(router: router)
        for (index, task) in ["counted", "counted-now", "counted-sync"].enumerated() {
            Counted.decodings.withLock { $0 = 0 }
            page.post(body: Self.body(task, "c\(index)"))
            let reply = await page.reply(for: "c\(index)")
            #expect(reply["error"]?.string("code") == "invalid_options", "\(task)")
            #expect(Counted.decodings.withLock { $0 } == 1, "\(task)")
        }
        // Fire and forget: decoded on arrival, before `receive` returns.
        Counted.decodings.withLock { $0 = 0 }
        page.post(body: Self.body("counted", nil))
        #expect(Counted.decodings.withLock { $0 } == 1)
        // The general path (an envelope the fast scan gives up on: `callbackId`).
        Counted.decodings.withLock { $0 = 0 }
        page.post(body: .string(#"{"callbackId":"g","task":"counted","options":{"a":1}}"#))
        #expect(await page.reply(for: "g")["error"]?.string("code") == "invalid_options")
        #expect(Counted.decodings.withLock { $0 } == 1)
    }

    @Test("a call refused at admission (its id in use) reports its options' error after one decoding")
    func onceWhenRefused() async throws {
        let gates = Gates()
        let wait = ClosureTask(name: "wait") { (_: NoOptions, context: CallContext) -> Int in
            await gates.wait(context.callID ?? "")
            return 1
        }
        let router = try makeRouter([wait, CountedTask(name: "counted", execution: .concurrent)])
        let page = InMemoryPage(router: router)
        page.send("wait", id: "w")
        #expect(await settle { gates.waitingCount == 1 })
        Counted.decodings.withLock { $0 = 0 }
        page.post(body: Self.body("counted", "w"))
        #expect(await settle { page.messages(for: "w").count == 1 })
        #expect(page.messages(for: "w").first?["error"]?.string("code") == "invalid_options")
        #expect(Counted.decodings.withLock { $0 } == 1)
        gates.release("w")
        #expect(await settle { page.messages(for: "w").count == 2 })
    }
}

/// Kind of fault: an error message in Swift's terms, which a front-end developer cannot act on.
/// A call without options to a task whose options are an object read "expected a value of type
/// Dictionary<String, Any>" (a new user's trial): the page is told what JSON to send instead.
@Suite("invalid_options messages name JSON's kinds, not Swift's types")
struct OptionsDecodingMessageTests {
    struct Order: Decodable, Sendable {
        let sku: String
        let quantity: Int
        let gift: Bool
        let price: Double
        let tags: [String]
    }

    struct OrderTask: SynchronousBridgeTask {
        let name = "order"
        func runSynchronously(_ options: Order, context: CallContext) throws -> Bool { true }
    }

    @Test(
        "each wrong or missing value is described as the JSON it should have been",
        arguments: [
            (nil, "Invalid options: expected an object but found null or nothing."),
            (.string("x"), "Invalid options: expected an object."),
            (
                ["sku": 1, "quantity": 1, "gift": true, "price": 1, "tags": []] as JSONValue,
                "Invalid options at sku: expected a string."
            ),
            (
                ["sku": "a", "quantity": "1", "gift": true, "price": 1, "tags": []] as JSONValue,
                "Invalid options at quantity: expected an integer."
            ),
            (
                ["sku": "a", "quantity": 1, "gift": 1, "price": 1, "tags": []] as JSONValue,
                "Invalid options at gift: expected true or false."
            ),
            (
                ["sku": "a", "quantity": 1, "gift": true, "price": "1", "tags": []] as JSONValue,
                "Invalid options at price: expected a number."
            ),
            (
                ["sku": "a", "quantity": 1, "gift": true, "price": 1, "tags": "a"] as JSONValue,
                "Invalid options at tags: expected an array."
            ),
            (
                ["sku": "a", "quantity": 1, "gift": true, "price": 1, "tags": [.null]] as JSONValue,
                "Invalid options at tags[0]: expected a string but found null or nothing."
            ),
        ] as [(JSONValue?, String)])
    func messages(options: JSONValue?, expected: String) async throws {
        let router = try makeRouter([OrderTask()])
        let page = InMemoryPage(router: router)
        let reply = await page.call("order", options: options)
        #expect(reply["error"]?.string("code") == "invalid_options")
        #expect(reply["error"]?.string("message") == expected, "\(reply)")
        await router.close()
    }
}
