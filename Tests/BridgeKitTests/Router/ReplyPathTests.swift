import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: a reply that takes a second path to the page (the message's own reply, which
/// the page reads with `JSON.parse`) skips the escapes the script path applies, so integers
/// beyond 2^53 lose digits there (field case R11) or the text differs from the script's value.
@Suite("Final replies through a ReplyHandler: the same value as the script path, in ASCII")
struct ReplyPathTests {
    struct Result: Encodable, Sendable {
        let big: Int64
        let negative: Int64
        let safe: Int64
        let text: String
    }

    static let text = "</script><!-- \u{2028}\u{2029} Grüße ✓ 😀 \"q\" \\"

    /// Posts one call with a reply path that carries final replies, and returns the reply text.
    static func replyText(task: any BridgeTask, options: String) async throws -> String {
        let router = try makeRouter([task])
        router.connect(PageChannel { _ in })
        let received = Mutex<[String?]>([])
        let handler = ReplyHandler(carriesFinalReplies: true) { json in received.withLock { $0.append(json) } }
        router.receive(
            .string(#"{"v":1,"kind":"call","id":"r","task":"\#(task.name)","options":\#(options)}"#),
            from: .mainFrame(appOrigin), replyHandler: handler)
        #expect(await eventually { received.withLock { !$0.isEmpty } })
        let replies = received.withLock { $0 }
        #expect(replies.count == 1)
        return try #require(replies.first ?? nil)
    }

    /// What the page's `JSON.parse` makes of `text`, written back by `JSON.stringify`.
    static func parsedInJavaScript(_ text: String) throws -> String {
        try NodeJS.run(
            """
            const fs = require('fs');
            const m = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
            process.stdout.write(JSON.stringify(m.data));
            """, stdin: text)
    }

    @Test("a typed result: unsafe integers become strings, text survives, the reply is pure ASCII")
    func typedResult() async throws {
        let task = ClosureTask(name: "typed") { (_: NoOptions, _: CallContext) in
            Result(
                big: 9_007_199_254_740_993, negative: -9_223_372_036_854_775_808, safe: 9_007_199_254_740_991,
                text: Self.text)
        }
        let reply = try await Self.replyText(task: task, options: "null")
        #expect(reply.utf8.allSatisfy { $0 < 0x80 })
        #expect(!reply.contains("<"))
        let data = try Self.parsedInJavaScript(reply)
        #expect(data.contains(#""big":"9007199254740993""#))
        #expect(data.contains(#""negative":"-9223372036854775808""#))
        #expect(data.contains(#""safe":9007199254740991"#))
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(data.utf8))
        #expect(decoded["text"] == .string(Self.text))
    }

    @Test("a RawJSON result gets the same escapes")
    func rawResult() async throws {
        let task = ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in options }
        let reply = try await Self.replyText(task: task, options: #"[12345678901234567890123,"\u2028é<"]"#)
        #expect(reply.utf8.allSatisfy { $0 < 0x80 })
        #expect(try Self.parsedInJavaScript(reply) == #"["12345678901234567890123","\#u{2028}é<"]"#)
    }

    @Test("a __proto__ key stays an ordinary member (JSON.parse makes an own property)")
    func protoKey() async throws {
        let task = ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in options }
        let reply = try await Self.replyText(task: task, options: #"{"__proto__":{"polluted":true}}"#)
        #expect(!reply.contains("JSON.parse"))
        #expect(try Self.parsedInJavaScript(reply) == #"{"__proto__":{"polluted":true}}"#)
    }
}
