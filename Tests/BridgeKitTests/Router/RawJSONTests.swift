import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Kind of fault: a pass-through payload that changes on the way (numbers rounded, keys
/// reordered), or text that is not JSON reaching the page as code.
@Suite("RawJSON: payloads passed through without decoding, still checked and escaped")
struct RawJSONTests {
    let rawEcho = ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in options }

    static func body(id: String, task: String, options: String) -> MessageBody {
        .string(#"{"v":1,"kind":"call","id":"\#(id)","task":"\#(task)","options":\#(options)}"#)
    }

    @Test("options reach the task byte for byte and come back unchanged (spacing, key order, big numbers)")
    func passThrough() async throws {
        let page = InMemoryPage(router: try makeRouter([rawEcho]))
        let options = #"{"z": 9007199254740991,  "a":[1 ,2.50, -0e+0],"s":"\u00e9\"Grüße\""}"#
        page.post(body: Self.body(id: "1", task: "raw", options: options))
        let reply = await page.reply(for: "1")
        #expect(reply["ok"] == true)
        let script = try #require(page.scripts.last)
        #expect(script.contains(#""data":"# + options + #","id":"1""#))
        // Integers JavaScript cannot hold exactly reach the page as strings, as for every reply (R11).
        page.post(body: Self.body(id: "2", task: "raw", options: "[12345678901234567890123]"))
        #expect(await page.reply(for: "2")["data"] == ["12345678901234567890123"])
    }

    @Test(
        "absent options are null; every JSON kind passes",
        arguments: [
            ("", "null"), (#","options":null"#, "null"), (#","options":"text""#, #""text""#), (#","options":[]"#, "[]"),
            (#","options":-1.5e3"#, "-1.5e3"), (#","options":true"#, "true"),
        ])
    func kinds(_ member: String, _ expected: String) async throws {
        let page = InMemoryPage(router: try makeRouter([rawEcho]))
        page.post(body: .string(#"{"v":1,"kind":"call","id":"k","task":"raw""# + member + "}"))
        #expect(await page.reply(for: "k")["ok"] == true)
        #expect(try #require(page.scripts.last).contains(#""data":"# + expected + ","))
    }

    @Test("options that are not JSON settle with an error and never reach the task")
    func invalidOptions() async throws {
        let ran = Counter()
        let task = ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in
            ran.increment()
            return options
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        for (index, options) in ["01", #""\x""#, "{\"a\"}", "1);alert(1);(", "NaN"].enumerated() {
            page.post(body: Self.body(id: "bad\(index)", task: "raw", options: options))
            let reply = await page.reply(for: "bad\(index)")
            #expect(
                ["invalid_message", "invalid_options"].contains(reply["error"]?.string("code")), "\(options) \(reply)")
        }
        #expect(ran.value == 0)
        // Foundation's parser forgives a trailing comma, but every path checks the body is JSON
        // (RFC 8259) first (issue 20, item 10): refused, never re-encoded.
        page.post(body: Self.body(id: "comma", task: "raw", options: "[1,]"))
        let refused = await page.reply(for: "comma")
        #expect(refused["error"]?.string("code") == "invalid_message", "\(refused)")
        #expect(ran.value == 0)
    }

    @Test("a raw result is escaped for the page: U+2028, U+2029 and </script> stay inside the string")
    func resultEscaped() async throws {
        let result = try RawJSON(
            validating: "{\"html\":\"</script><script>alert(1)</script>\",\"sep\":\"\u{2028}\u{2029}\"}")
        let task = ClosureTask(name: "html") { (_: NoOptions, _: CallContext) in result }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("html")
        #expect(reply["data"]?.string("html") == "</script><script>alert(1)</script>")
        #expect(reply["data"]?.string("sep") == "\u{2028}\u{2029}")
        let script = try #require(page.scripts.last)
        #expect(!script.contains("</script>") && !script.contains("\u{2028}") && !script.contains("\u{2029}"))
    }

    @Test("RawJSON(validating:) refuses text that is not one JSON value, with invalid_result")
    func validatingInit() throws {
        #expect(throws: BridgeError.self) { try RawJSON(validating: "{\"a\":1} {\"b\":2}") }
        do {
            _ = try RawJSON(validating: "alert(1)")
            Issue.record("accepted code")
        } catch {
            #expect(error.code == "invalid_result")
        }
        #expect(try RawJSON(validating: " [1] ").description == " [1] ")
        #expect(throws: BridgeError.self) { try RawJSON(validating: "[[[1]]]", maxDepth: 2) }
    }

    @Test("inside other Codable types it round-trips through JSONValue; decode(_:) looks inside")
    func nested() throws {
        struct Envelope: Codable, Equatable {
            var name: String
            var payload: RawJSON
        }
        let value = Envelope(name: "n", payload: try RawJSON(validating: #"{"b":[1,true,null],"a":"x"}"#))
        let decoded = try BridgeJSON.decode(Envelope.self, from: BridgeJSON.encode(value))
        #expect(decoded.name == "n")
        #expect(try decoded.payload.decode(JSONValue.self) == ["a": "x", "b": [1, true, nil]])
        #expect(try RawJSON(encoding: ["k": 1]).description == #"{"k":1}"#)
    }

    @Test("a raw progress value and a reply through a reply handler carry the same JSON")
    func progressAndReplyHandler() async throws {
        let task = ClosureTask(name: "steps") { (options: RawJSON, context: CallContext) in
            try await context.progress(options)
            return options
        }
        let page = InMemoryPage(router: try makeRouter([task]))
        let reply = await page.call("steps", options: ["n": 1])
        #expect(reply["data"] == ["n": 1])
        #expect(page.messages.contains { $0["kind"] == "progress" && $0["data"] == ["n": 1] })
    }
}
