import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a call answered on the fast path skips something the general path does
/// (a refusal, a limit, an error code, the page check), settles twice, or not at all.
@Suite("SynchronousBridgeTask: answered before receive returns, exactly once, with every check")
struct SynchronousTaskTests {
    /// A synchronous echo that counts its runs and reports the thread it ran on.
    static func probe(_ runs: Counter, thread: Locked<pthread_t?> = Locked(nil)) -> SynchronousClosureTask<
        JSONValue, JSONValue
    > {
        SynchronousClosureTask(name: "now") { options, _ in
            runs.increment()
            thread.set(pthread_self())
            return options
        }
    }

    @Test("the reply is handed to the engine, run on the caller's thread, once per call")
    func answeredInPlace() async throws {
        let runs = Counter()
        let thread = Locked<pthread_t?>(nil)
        let page = InMemoryPage(router: try makeRouter([Self.probe(runs, thread: thread)]))
        for index in 0..<50 {
            let caller = pthread_self()
            page.send("now", options: ["n": .int(Int64(index))], id: "same")
            // Ran on the thread that called `receive`, before it returned.
            #expect(thread.value.map { pthread_equal($0, caller) != 0 } == true)
            #expect(await eventually { page.messages(for: "same").count == index + 1 })
        }
        #expect(runs.value == 50)
        #expect(
            page.messages(for: "same").last == ["v": 1, "kind": "reply", "id": "same", "ok": true, "data": ["n": 49]])
    }

    @Test(
        "registered with its own type (the synchronous overload) or as any BridgeTask: answered the same")
    func bothRegistrations() async throws {
        let task = SynchronousClosureTask(name: "now") { (options: JSONValue, _) in options }
        let concrete = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(appOrigin)])))
        try concrete.register(task)
        let erased = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(appOrigin)])))
        let existential: any BridgeTask = task
        try erased.register(existential)
        let replacing = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(appOrigin)])))
        #expect(!replacing.replace(task))
        for router in [concrete, erased, replacing] {
            let page = InMemoryPage(router: router)
            page.send("now", options: ["n": 1], id: "c")
            #expect(await eventually { !page.messages(for: "c").isEmpty })
            #expect(page.messages(for: "c") == [["v": 1, "kind": "reply", "id": "c", "ok": true, "data": ["n": 1]]])
        }
    }

    @Test("through a reply handler that carries final replies (both shipped adapters): answered before receive returns")
    func answeredBeforeReceiveReturns() throws {
        let runs = Counter()
        let router = try makeRouter([Self.probe(runs)])
        router.connect(PageChannel { _ in })
        for index in 0..<50 {
            let answers = Locked<[String?]>([])
            router.receive(
                .string(#"{"v":1,"kind":"call","id":"same","task":"now","options":{"n":\#(index)}}"#),
                from: .mainFrame(appOrigin),
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.set(answers.value + [json]) })
            #expect(answers.value == [#"{"data":{"n":\#(index)},"id":"same","kind":"reply","ok":true,"v":1}"#])
        }
        #expect(runs.value == 50)
    }

    @Test("the page channel (an evaluate function) gets the reply from a Swift task")
    func asyncChannel() async throws {
        let page = InMemoryPage(router: try makeRouter([Self.probe(Counter())]))
        #expect(await page.call("now", options: ["a": [1, "<b>"]])["data"] == ["a": [1, "<b>"]])
    }

    @Test(
        "the script is byte for byte what the same call to an asynchronous task gets",
        arguments: [
            #"{"b":1,"a":"<\/script>\u2028"}"#, #"{"__proto__":{"x":1}}"#, "9007199254740993", #""é✓😀""#,
            "null", #"[1.5e300,-0,{"":[]}]"#,
        ])
    func sameScriptAsAsynchronousTask(optionsText: String) async throws {
        for typed in [false, true] {
            let sync: any BridgeTask =
                typed
                ? SynchronousClosureTask(name: "echo") { (options: JSONValue, _) in options }
                : SynchronousClosureTask(name: "echo") { (options: RawJSON, _) in options }
            let async: any BridgeTask =
                typed
                ? ClosureTask(name: "echo", execution: .immediate) { (options: JSONValue, _: CallContext) in options }
                : ClosureTask(name: "echo", execution: .immediate) { (options: RawJSON, _: CallContext) in options }
            var scripts: [[String]] = []
            for task in [sync, async] {
                let router = try makeRouter([task])
                let received = Locked<[String]>([])
                router.connect(PageChannel { script in received.set(received.value + [script]) })
                let body = #"{"v":1,"kind":"call","id":"c-1","task":"echo","options":"# + optionsText + "}"
                router.receive(.string(body), from: .mainFrame(appOrigin))
                #expect(await eventually { !received.value.isEmpty })
                try await Task.sleep(for: .milliseconds(5))
                scripts.append(received.value)
            }
            #expect(scripts[0].count == 1)
            #expect(scripts[0] == scripts[1], "typed: \(typed)")
        }
    }

    @Test("errors keep their codes: thrown BridgeError, any other error, unencodable and too large results")
    func errorCodes() async throws {
        struct Failure: Error {}
        let tasks: [any BridgeTask] = [
            SynchronousClosureTask(name: "denied") { (_: NoOptions, _) -> Int in
                throw BridgeError.forbidden(reason: "custom", origin: nil)
            },
            SynchronousClosureTask(name: "broken") { (_: NoOptions, _) -> Int in throw Failure() },
            SynchronousClosureTask(name: "nan") { (_: NoOptions, _) in Double.nan },
            SynchronousClosureTask(name: "huge") { (_: NoOptions, _) in String(repeating: "x", count: 2_000) },
        ]
        let page = InMemoryPage(router: try makeRouter(tasks, limits: BridgeLimits(maxPayloadBytes: 1_000)))
        #expect(await page.call("denied")["error"]?.string("code") == "forbidden")
        #expect(await page.call("broken")["error"]?.string("code") == "task_failed")
        #expect(await page.call("nan")["error"]?.string("code") == "invalid_result")
        #expect(await page.call("huge")["error"]?.string("code") == "payload_too_large")
    }

    @Test("options that do not decode settle with invalid_options and its path; the task never runs")
    func undecodableOptions() async throws {
        struct Options: Decodable, Sendable { let count: Int }
        let runs = Counter()
        let task = SynchronousClosureTask(name: "typed") { (options: Options, _) -> Int in
            runs.increment()
            return options.count
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("typed", options: ["count": "three"])
        #expect(reply["error"]?.string("code") == "invalid_options")
        #expect(reply["error"]?["details"]?.string("path") == "count")
        #expect(await page.call("typed", options: ["count": 3])["data"] == 3)
        #expect(runs.value == 1)
    }

    @Test("refusals come first: policy, close, an id a pending call uses; the task never runs")
    func refusals() async throws {
        let runs = Counter()
        let slow = ClosureTask(name: "slow") { (_: NoOptions, _: CallContext) -> Int in
            try await Task.sleep(for: .seconds(30))
            return 1
        }
        let router = try makeRouter([Self.probe(runs), slow])
        let page = InMemoryPage(router: router)
        let sub = await page.call("now", from: .subframe("https://ads.example"), replyHandler: true)
        #expect(sub["error"]?.string("code") == "forbidden")
        page.send("slow", id: "busy")
        #expect(await page.call("now", id: "busy")["error"]?.string("code") == "invalid_message")
        await router.close()
        // After close no channel is left: the refusal goes through the message's reply handler.
        #expect(await page.call("now", id: "late", replyHandler: true)["error"]?.string("code") == "unavailable")
        #expect(runs.value == 0)
        #expect(page.messages(for: "busy").filter { $0["kind"] == "reply" }.count == 2)  // the refusal, then close's
    }

    @Test("a reply handler that carries final replies gets the reply; a subframe call is answered through its handler")
    func replyHandlerPaths() throws {
        let router = try makeRouter(
            [Self.probe(Counter())], policy: .origins([OriginPattern(appOrigin)], allowsSubframes: true))
        let page = InMemoryPage(router: router)
        let carried = Locked<[String?]>([])
        let handler = ReplyHandler(carriesFinalReplies: true) { json in carried.set(carried.value + [json]) }
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"r","task":"now","options":[1]}"#), from: .mainFrame(appOrigin),
            replyHandler: handler)
        #expect(page.scripts.isEmpty)
        #expect(carried.value.count == 1)
        #expect(carried.value.first??.contains(#""data":[1]"#) == true)
        page.send("now", options: [2], id: "sub", from: .subframe(appOrigin), replyHandler: true)
        #expect(page.deliveries.map(\.path) == [.replyHandler])
        #expect(page.messages(for: "sub").first?["data"] == [2])
    }

    @Test("pages change: a reply is not handed to the page that replaced the one that asked")
    func navigationDuringTheCall() async throws {
        let pageBox = Locked<InMemoryPage?>(nil)
        let task = SynchronousClosureTask(name: "navigates") { (_: NoOptions, _) -> Int in
            pageBox.value?.navigate()
            return 1
        }
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        pageBox.set(page)
        page.send("navigates", id: "n")
        #expect(await eventually { log.all.contains { $0.id == "n" && $0.direction == .outbound } })
        #expect(page.deliveries.isEmpty)
        #expect(log.all.contains { $0.id == "n" && $0.direction == .outbound && $0.reason == .navigated })
    }

    @Test("progress throws cancelled; the traffic log has the call and its reply")
    func progressAndLog() async throws {
        let kept = Locked<CallContext?>(nil)
        let task = SynchronousClosureTask(name: "progress") { (_: NoOptions, context: CallContext) -> Int in
            kept.set(context)
            return 2
        }
        let router = try makeRouter([task])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        #expect(await page.call("progress", id: "p")["data"] == 2)
        let context = try #require(kept.value)
        #expect(context.callID == "p")
        await #expect(throws: BridgeError.self) { try await context.progress(1) }
        do {
            try await context.progress(1)
        } catch let error as BridgeError {
            #expect(error.code == "cancelled")
        }
        #expect(page.messages(for: "p").count == 1)
        // The reply's record follows its evaluation (its reason says whether the page took it), so
        // the page can have the reply a moment before the log has the record.
        let records = { log.all.filter { $0.id == "p" }.map { "\($0.direction) \($0.kind) \($0.outcome ?? "-")" } }
        #expect(await eventually { records().count == 2 }, "\(records())")
        #expect(records() == ["inbound call -", "outbound reply ok"])
    }

    @Test("fire-and-forget calls run too, in arrival order")
    func fireAndForget() async throws {
        let seen = Locked<[Int]>([])
        let task = SynchronousClosureTask(name: "note") { (options: Int, _) -> NoResult in
            seen.set(seen.value + [options])
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        for index in 0..<20 { page.send("note", options: .int(Int64(index)), fireAndForget: true) }
        #expect(await eventually { seen.value.count == 20 })
        #expect(seen.value == Array(0..<20))
        #expect(page.deliveries.isEmpty)
    }

    @Test("an id that needs escaping takes the general encoder and still round-trips")
    func escapedID() async throws {
        let page = InMemoryPage(router: try makeRouter([Self.probe(Counter())]))
        for id in [#"a"b"#, "x</script>", "é\u{2028}"] {
            #expect(await page.call("now", options: true, id: id)["id"] == .string(id))
        }
    }

    @Test("a RawJSON task keeps its options from a .json body after the engine's buffer is released")
    func rawOptionsOutliveTheBody() async throws {
        let kept = Locked<RawJSON?>(nil)
        let task = SynchronousClosureTask(name: "keep") { (options: RawJSON, _) -> NoResult in
            kept.set(options)
            return NoResult()
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        let options = #"{"b": [1, 2.5e3, "é✓😀"], "a": null}"#
        do {
            // A body the engine owns, released (and overwritten) as soon as receive returns.
            var body = Data((#"{"v":1,"kind":"call","id":"k","task":"keep","options":"# + options + "}").utf8)
            page.post(body: .json(body))
            body.resetBytes(in: 0..<body.count)
        }
        #expect(await eventually { !page.messages(for: "k").isEmpty })
        #expect(page.messages(for: "k").first?["ok"] == true)
        #expect(kept.value.map { String(decoding: $0.data, as: UTF8.self) } == options)
        #expect(kept.value?.data.first == UInt8(ascii: "{"))  // indexed from zero, like any Data
    }

    @Test("a call running when close() drops the channel still gets its result, through the channel it came in on")
    func closeWhileRunning() async throws {
        let router = try makeRouter()
        let page = InMemoryPage(router: router)
        try router.register(
            SynchronousClosureTask(name: "closing") { (_: NoOptions, _) -> String in
                // close() runs to the end (channel dropped) while this task is still running.
                let closed = DispatchSemaphore(value: 0)
                Task.detached {
                    await router.close()
                    closed.signal()
                }
                closed.wait()
                return "done"
            })
        // From a thread of its own: close() needs Swift's pool (which Dispatch's global queues
        // share on Linux) while this one waits.
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            Thread {
                page.send("closing", id: "c")
                finished.resume()
            }.start()
        }
        // The reply script goes to the engine from a Swift task: it can land after `send` returned.
        #expect(await eventually { !page.messages(for: "c").isEmpty })
        #expect(page.messages(for: "c") == [["v": 1, "kind": "reply", "id": "c", "ok": true, "data": "done"]])
        // Closed: a later call is refused (through its reply handler, the only path left), and the
        // call that was running was answered once.
        page.send("closing", id: "d", replyHandler: true)
        #expect(await page.reply(for: "d")["error"]?.string("code") == "unavailable")
        #expect(page.messages(for: "c").count == 1)
    }
}
