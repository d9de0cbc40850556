import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a call that never settles, settles twice, or settles with the wrong data.
@Suite("Router: calls settle exactly once with data or a stable code")
struct RouterCallTests {
    @Test("A call is decoded, run and answered with its typed result")
    func typedRoundTrip() async throws {
        struct Options: Decodable, Sendable {
            let name: String
            let count: Int
        }
        let task = ClosureTask(name: "greet") { (o: Options, _: CallContext) in "\(o.name) x\(o.count)" }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("greet", options: ["name": "Ada", "count": 2, "ignored": true])
        #expect(reply["ok"] == true && reply["data"] == "Ada x2" && reply["v"] == 1)
    }

    @Test("unknown_task names the task, and no task runs")
    func unknownTask() async throws {
        let page = InMemoryPage(router: try makeRouter())
        let reply = await page.call("nope")
        #expect(reply["ok"] == false && reply["error"]?.string("code") == "unknown_task")
        #expect(reply["error"]?["details"]?.string("task") == "nope")
    }

    @Test("invalid_options names the coding path of the failure")
    func invalidOptionsPath() async throws {
        struct Button: Decodable, Sendable { let title: String }
        struct Options: Decodable, Sendable { let buttons: [Button] }
        let task = ClosureTask(name: "menu") { (_: Options, _: CallContext) in NoResult() }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("menu", options: ["buttons": [["title": "a"], ["title": 3]]])
        #expect(reply["error"]?.string("code") == "invalid_options")
        #expect(reply["error"]?["details"]?.string("path") == "buttons[1].title")
        let missing = await page.call("menu", options: [:])
        #expect(missing["error"]?["details"]?.string("path") == "buttons")
    }

    @Test("A thrown BridgeError keeps its code; any other error becomes task_failed")
    func thrownErrors() async throws {
        struct Boom: Error {}
        let custom = ClosureTask(name: "custom") { (_: NoOptions, _: CallContext) -> NoResult in
            throw BridgeError(code: "not_logged_in", message: "Log in first", details: ["retry": false])
        }
        let other = ClosureTask(name: "other") { (_: NoOptions, _: CallContext) -> NoResult in throw Boom() }
        let page = InMemoryPage(router: try makeRouter([custom, other]))
        let first = await page.call("custom")
        #expect(first["error"] == ["code": "not_logged_in", "message": "Log in first", "details": ["retry": false]])
        #expect(await page.call("other")["error"]?.string("code") == "task_failed")
    }

    @Test("R10 booleans and numbers keep their JSON types")
    func r10() async throws {
        let seen = Mutex<JSONValue?>(nil)
        let task = ClosureTask(name: "prefs") { (o: JSONValue, _: CallContext) in
            seen.withLock { $0 = o }
            return o
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        let options: JSONValue = ["optIn": false, "retries": 0, "level": 1, "label": "true"]
        let reply = await page.call("prefs", options: options)
        let got = try #require(seen.withLock { $0 })
        #expect(got.bool("optIn") == false && got.bool("retries") == nil && got.int("retries") == 0)
        #expect(got.int("optIn") == nil && got.bool("label") == nil && got.string("label") == "true")
        #expect(reply["data"] == options)
        let reencoded = String(decoding: try BridgeJSON.encode(got), as: UTF8.self)
        #expect(reencoded == #"{"label":"true","level":1,"optIn":false,"retries":0}"#)
    }

    @Test("R13 absent, null, empty-string and number bodies are invalid without a reply; null fields decode")
    func r13() async throws {
        let seen = Mutex<JSONValue?>(nil)
        let login = ClosureTask(name: "login") { (o: JSONValue, _: CallContext) in
            seen.withLock { $0 = o }
            return NoResult()
        }
        let router = try makeRouter([login])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for body: MessageBody in [
            .absent, .json(Data("null".utf8)), .string(""), .json(Data("42".utf8)),
            .json(Data("\"\"".utf8)), MessageBody(foundationObject: nil), MessageBody(foundationObject: NSNull()),
        ] {
            page.post(body: body)
        }
        let reply = await page.call("login", options: ["user": nil, "pin": "0000"], id: "cb_1")
        #expect(reply["ok"] == true && reply["data"] == .null)
        let options = try #require(seen.withLock { $0 })
        #expect(options["user"] == .null && options.string("pin") == "0000" && options.string("user") == nil)
        #expect(page.scripts.count == 1)
        #expect(log.all.filter { $0.outcome == "invalid_message" }.count == 7)
        let legacy = #"{"task":"login","options":{"user":null,"pin":"0000"},"callbackId":"cb_2"}"#
        page.post(body: .string(legacy))
        #expect(await page.reply(for: "cb_2")["ok"] == true)
    }

    @Test("R14 a task without a result replies null exactly once")
    func r14() async throws {
        let ping = ClosureTask(name: "ping") { (_: NoOptions, _: CallContext) in NoResult() }
        let page = InMemoryPage(router: try makeRouter([ping]))
        let reply = await page.call("ping", id: "cb_2")
        #expect(reply["data"] == .null)
        let script = try #require(page.scripts.first)
        #expect(script.contains(#""data":null"#) && page.scripts.count == 1)
        let received = try NodeJS.receivedMessages(evaluating: script)
        #expect(received.contains(#""data":null"#))
    }

    @Test("R15 options of every JSON type keep their type; string and object bodies route the same")
    func r15() async throws {
        let page = InMemoryPage(router: try makeRouter([echoTask]))
        for value: JSONValue in [["sku": "A-1", "qty": 2], "plain", 0, false, [1, "a"], nil] {
            #expect(await page.call("echo", options: value)["data"] == value)
        }
        let object = #"{"v":1,"kind":"call","id":"obj","task":"echo","options":{"sku":"A-1","qty":2}}"#
        page.post(body: .json(Data(object.utf8)))
        page.post(body: .string(object.replacingOccurrences(of: "obj", with: "str")))
        let viaJSONString = try BridgeJSON.encode(object.replacingOccurrences(of: "obj", with: "quoted"))
        page.post(body: .json(viaJSONString))
        let a = await page.reply(for: "obj")
        let b = await page.reply(for: "str")
        let c = await page.reply(for: "quoted")
        #expect(a["data"] == b["data"] && b["data"] == c["data"] && a["data"]?.int("qty") == 2)
    }

    @Test("R16 a callback handler that answers twice replies once; the second answer reports false")
    func r16() async throws {
        let second = Mutex<Bool?>(nil)
        let scan = CallbackTask(name: "scan") { (_: NoOptions, _: CallContext, respond: CallResponder<JSONValue>) in
            respond.respond(["n": 1])
            second.withLock { $0 = respond.respond(["n": 2]) }
        }
        let page = InMemoryPage(router: try makeRouter([scan]))
        let reply = await page.call("scan", id: "cb_3")
        #expect(reply["data"] == ["n": 1])
        #expect(await eventually { second.withLock { $0 } != nil })
        #expect(second.withLock { $0 } == false)
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.messages(for: "cb_3").count == 1)
        let forgotten = CallbackTask(name: "forgot") { (_: NoOptions, _: CallContext, _: CallResponder<NoResult>) in }
        try page.router.register(forgotten)
        #expect(await page.call("forgot")["error"]?.string("code") == "task_failed")
    }

    @Test("R18 parallel calls of one task are matched by id, not by order")
    func r18() async throws {
        let gates = Mutex<[String: CheckedContinuation<Void, Never>]>([:])
        let lookup = ClosureTask(name: "geo.lookup") { (o: JSONValue, _: CallContext) -> String in
            let q = o.string("q") ?? ""
            await withCheckedContinuation { c in gates.withLock { $0[q] = c } }
            return "result-\(q)"
        }
        let page = InMemoryPage(router: try makeRouter([lookup]))
        let a = page.send("geo.lookup", options: ["q": "a"])
        let b = page.send("geo.lookup", options: ["q": "b"])
        #expect(a != b)
        #expect(await eventually { gates.withLock { $0.count } == 2 })
        gates.withLock { $0.removeValue(forKey: "b") }?.resume()
        let replyB = await page.reply(for: try #require(b))
        gates.withLock { $0.removeValue(forKey: "a") }?.resume()
        let replyA = await page.reply(for: try #require(a))
        #expect(replyA["data"] == "result-a" && replyB["data"] == "result-b")
    }

    @Test("R25 a task can be replaced and removed by name; registering a name twice is an error")
    func r25() async throws {
        let router = try makeRouter()
        try router.register(ClosureTask(name: "share") { (_: NoOptions, _: CallContext) in "A" })
        #expect(throws: TaskRegistrationError.duplicateName("share")) {
            try router.register(ClosureTask(name: "share") { (_: NoOptions, _: CallContext) in "B" })
        }
        #expect(router.replace(ClosureTask(name: "share") { (_: NoOptions, _: CallContext) in "B" }) == true)
        let page = InMemoryPage(router: router)
        #expect(await page.call("share")["data"] == "B")
        // Replaced again after a call found it (the router keeps the last task it found).
        #expect(router.replace(ClosureTask(name: "share") { (_: NoOptions, _: CallContext) in "C" }) == true)
        #expect(await page.call("share")["data"] == "C")
        #expect(router.removeTask(named: "share"))
        let gone = await page.call("share", id: "after")
        #expect(gone["error"]?.string("code") == "unknown_task" && gone["error"]?["details"]?.string("task") == "share")
        #expect(page.messages(for: "after").count == 1)
        #expect(throws: TaskRegistrationError.emptyName) {
            try router.register(ClosureTask(name: "") { (_: NoOptions, _: CallContext) in 1 })
        }
    }

    @Test("A call without an id is fire-and-forget: the task runs, nothing is sent back")
    func fireAndForget() async throws {
        let ran = Mutex(0)
        let task = ClosureTask(name: "log") { (_: NoOptions, _: CallContext) in
            ran.withLock { $0 += 1 }
            return 1
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        page.send("log", fireAndForget: true)
        #expect(await eventually { ran.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(page.deliveries.isEmpty)
    }

    @Test("Fire-and-forget calls run in arrival order (history notices never overtake each other)")
    func fireAndForgetOrder() async throws {
        let seen = Mutex<[Int64]>([])
        let notice = ClosureTask(name: "notice") { (o: JSONValue, _: CallContext) -> NoResult in
            for _ in 0..<Int(o.int("n") ?? 0) % 3 { await Task.yield() }
            seen.withLock { $0.append(o.int("n") ?? -1) }
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([notice]))
        for n in 0..<200 { page.send("notice", options: ["n": .int(Int64(n))], fireAndForget: true) }
        #expect(await eventually { seen.withLock { $0.count } == 200 })
        #expect(seen.withLock { $0 } == (0..<200).map(Int64.init))
    }

    @Test("Unsupported protocol versions, unknown kinds and a reused id are refused with invalid_message")
    func envelopeErrors() async throws {
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) in
            await withCheckedContinuation { c in gate.withLock { $0 = c } }
            return "done"
        }
        let page = InMemoryPage(router: try makeRouter([slow, echoTask]))
        page.post(["v": 2, "kind": "call", "id": "v2", "task": "echo"])
        page.post(["v": 1, "kind": "teleport", "id": "k"])
        page.post(["v": "1", "kind": "call", "id": "vs", "task": "echo"])
        #expect(await page.reply(for: "v2")["error"]?["details"]?["supported"] == [1])
        #expect(await page.reply(for: "k")["error"]?.string("code") == "invalid_message")
        #expect(await page.reply(for: "vs")["error"]?.string("code") == "invalid_message")
        page.send("slow", id: "same")
        #expect(await eventually { gate.withLock { $0 } != nil })
        page.send("slow", id: "same")
        let refusal = await page.reply(for: "same")
        #expect(refusal["error"]?.string("code") == "invalid_message")
        // The refused duplicate left the first call in place: it still settles, with its result.
        gate.withLock { $0 }?.resume()
        #expect(await eventually { page.messages(for: "same").count == 2 })
        #expect(page.messages(for: "same").last?["data"] == "done")
    }
}
