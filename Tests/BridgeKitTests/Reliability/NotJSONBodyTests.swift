import BridgeKitTesting
import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: decoding paths that disagree on what a body is (issue 20, item 10).
///
/// `JSONDecoder` only looks inside the strings a type reads, so a body with a control character
/// (or invalid UTF-8) in a member nobody reads, such as a `callbackId` next to an `id`, was run
/// as a call by the general path, while a strict decoder (and the fuzz harness) refused it and
/// the pre-scan named the other member's id. Every path must take a body only when it is one JSON
/// text (RFC 8259, ``JSONValidator``) and answer a refused body under the id the decoder reads.
@Suite("Reliability: every decoding path takes the same bodies")
struct NotJSONBodyTests {
    /// The body RouterFuzz found (`fuzz-out/crash-…`, base64 in issue 20), without its fuzz
    /// framing (settings byte 0x00, control byte 0x80: a string body from the main frame): an
    /// escape-free control character (0x1B) in `callbackId`, and a byte that is not UTF-8 in `id`
    /// (which the string form repairs to U+FFFD).
    static let fuzzInput = Data(
        base64Encoded:
            "AIB7InRhc2siOiJjYiIsIm9wdGlvbnMiOnsiayI6MX0sImNhbGxiYWNrSWQiOiJSUlJSUlJSUj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj5SUlJSUhtSUlJNUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUmwiLCJpZCI6Ik4tMVJSUmNi0zFAIn0="
    )

    /// The second body RouterFuzz found (a 20-minute run of the first fix): `options` starts with
    /// a byte that is not UTF-8 (repaired to U+FFFD) before `{"…"` , so the envelope scan read a
    /// "token" up to the comma and the `id` after it at the top level, where ``BodyScan`` (and a
    /// strict decode) see it nested: the call was answered under an id no other path names.
    static let fuzzInput2 = Data(
        base64Encoded:
            "AIB7InRhc2siOiJjYiIsIm9wdGlvbnMiOuN7IlJSUlJSUj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+wsLCwsI+Pj4+Pj4+Pj4+PiIsImlkIjoiTi0xUlJSY2LTMUAifQ=="
    )

    static func callbackTask(_ ran: Counter) -> any BridgeTask {
        CallbackTask(name: "cb") { (options: JSONValue, _: CallContext, responder: CallResponder<JSONValue>) in
            ran.increment()
            responder.respond(options)
        }
    }

    @Test("the fuzz input: refused as invalid_message under the id the decoder reads; the task never runs")
    func fuzzInputRefused() async throws {
        let input = try #require(Self.fuzzInput)
        let body = String(decoding: input.dropFirst(2), as: UTF8.self)
        let ran = Counter()
        let page = InMemoryPage(router: try makeRouter([Self.callbackTask(ran)]))
        page.post(body: .string(body))
        let id = "N-1RRRcb\u{FFFD}1@"
        let reply = await page.reply(for: id)
        #expect(reply["error"]?.string("code") == "invalid_message", "\(reply)")
        #expect(ran.value == 0)
        // Nothing under the callbackId, which the decoder never reads when an id is present.
        #expect(page.messages.allSatisfy { $0["id"] == .string(id) }, "\(page.messages)")
    }

    @Test("the second fuzz input: not answered (it names no id a strict reading sees), as on the general path")
    func secondFuzzInputNotAnswered() async throws {
        let input = try #require(Self.fuzzInput2)
        let ran = Counter()
        let router = try makeRouter([Self.callbackTask(ran)])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for body in [
            MessageBody.string(String(decoding: input.dropFirst(2), as: UTF8.self)), .json(Data(input.dropFirst(2))),
        ] {
            page.post(body: body)
        }
        #expect(await eventually { log.all.filter { $0.direction == .inbound }.count == 2 })
        #expect(log.all.allSatisfy { $0.id == nil && $0.outcome == "invalid_message" }, "\(log.all)")
        try await Task.sleep(for: .milliseconds(50))
        #expect(page.messages.isEmpty, "\(page.messages)")
        #expect(ran.value == 0)
    }

    @Test("a number or literal for options must be one: a stray token never makes the scan read a nested id")
    func strayTokenOptions() async throws {
        let router = try makeRouter([Self.callbackTask(Counter())])
        let page = InMemoryPage(router: router)
        // After a `{` in the "token", the id is nested for a strict reading (and BodyScan): not answered.
        for (index, token) in ["t{\"a\":1", "1{\"a\":1", "\u{FFFD}{\"a\":1"].enumerated() {
            page.post(body: .string(#"{"task":"cb","options":"# + token + #","id":"nested-\#(index)"}"#))
        }
        // Not a value, but the id stays at the top level: invalid_message under it.
        for (index, token) in ["x", "nul", "-"].enumerated() {
            page.post(body: .string(#"{"task":"cb","options":"# + token + #","id":"flat-\#(index)"}"#))
            #expect(await page.reply(for: "flat-\(index)")["error"]?.string("code") == "invalid_message", "\(token)")
        }
        // A valid scalar keeps the fast path: answered under its id.
        page.post(body: .string(#"{"task":"cb","options":-1.5e3,"id":"ok"}"#))
        #expect(await page.reply(for: "ok")["data"] == -1500)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!page.messages.contains { $0.string("id")?.hasPrefix("nested") == true }, "\(page.messages)")
    }

    /// A control character, invalid UTF-8 or a trailing comma where no decoder reads it, on
    /// each path: the general one (a `callbackId` next to the `id`, an unknown member), the fast
    /// one (options of an asynchronous, an immediate and a synchronous task) and `RawJSON`.
    static let unreadGarbage: [(task: String, body: [UInt8])] = {
        var cases: [(String, [UInt8])] = []
        for task in ["typed", "typed-now", "typed-sync", "raw", "cb"] {
            for junk: [UInt8] in [[0x1B], [0xD3, 0x31], [0xFF]] {
                // General path: an extra member the envelope never reads.
                cases.append(
                    (
                        task,
                        Array(#"{"v":1,"kind":"call","id":"x","task":""#.utf8) + Array(task.utf8)
                            + Array(#"","options":{"a":1},"callbackId":""#.utf8) + junk + Array(#""}"#.utf8)
                    ))
                // Fast path: a member of the options the type never reads.
                cases.append(
                    (
                        task,
                        Array(#"{"v":1,"kind":"call","id":"x","task":""#.utf8) + Array(task.utf8)
                            + Array(#"","options":{"a":1,"junk":""#.utf8) + junk + Array(#""}}"#.utf8)
                    ))
            }
            cases.append(
                (
                    task,
                    Array(#"{"v":1,"kind":"call","id":"x","task":""#.utf8) + Array(task.utf8)
                        + Array(#"","options":{"a":1,"junk":[1,]}}"#.utf8)
                ))
        }
        return cases
    }()

    @Test(
        "a body that is not JSON where nobody reads it is refused on every path, with the same reply",
        arguments: 0..<unreadGarbage.count)
    func unreadGarbageRefused(index: Int) async throws {
        let (task, bytes) = Self.unreadGarbage[index]
        let ran = Counter()
        let router = try makeRouter(optionReadingTasks(ran) + [Self.callbackTask(ran)])
        // A posted string is valid UTF-8 (the engine's, or the repair of `String(decoding:)`).
        let forms =
            bytes.allSatisfy { $0 < 0x80 }
            ? [MessageBody.json(Data(bytes)), .string(String(decoding: bytes, as: UTF8.self))]
            : [MessageBody.json(Data(bytes))]
        for form in forms {
            let page = InMemoryPage(router: router)
            page.post(body: form)
            let reply = await page.reply(for: "x")
            #expect(reply["error"]?.string("code") == "invalid_message", "\(task) \(form) \(reply)")
        }
        #expect(ran.value == 0, "\(task)")
    }

    @Test("the pre-scan names the id the decoder reads: id before callbackId, whatever their order")
    func scanPrefersID() {
        for text in [#"{"callbackId":"cb","id":"i","x":"#, #"{"id":"i","callbackId":"cb","x":"#, #"{"id":"i","x":"#] {
            let id = Array(text.utf8).withUnsafeBufferPointer { BodyScan($0).id }
            #expect(id == "i", "\(text)")
        }
        let callbackOnly = Array(#"{"callbackId":"cb","x":"#.utf8).withUnsafeBufferPointer { BodyScan($0).id }
        #expect(callbackOnly == "cb")
    }
}
