import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: a large script with a handful of non-ASCII characters makes the engine hold
/// it at two bytes per character (WebKit keeps a string with any character above U+00FF in
/// UTF-16), doubling the engine's copies of a large reply; or the ASCII form changes the value,
/// differs between the two script builders, or blows up text that is mostly non-ASCII.
@Suite("Large scripts with few non-ASCII characters are pure ASCII, with the same value")
struct ASCIIScriptTests {
    /// The reply's JSON argument of a `receive` script (the builder's escapes are JSON escapes).
    static func argument(of script: String) throws -> Data {
        let prefix = PageFunction.receive.source + "("
        let suffix = ");void 0"
        try #require(script.hasPrefix(prefix) && script.hasSuffix(suffix))
        return Data(script.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
    }

    struct Reply: Decodable, Equatable {
        let id: String
        let data: [String]
    }

    static func isASCII(_ script: String) -> Bool { script.utf8.allSatisfy { $0 < 0x80 } }

    @Test("a 64 KB result with a few ✓, é and 😀: ASCII escapes, the same script from both builders, the same value")
    func fewNonASCII() throws {
        let texts = [String(repeating: "base64+/", count: 8_000), "✓ Grüße 😀 \u{2028}", "<tail>"]
        let result = try BridgeJSON.encode(texts)
        let built = try #require(ReplyPipeline.successScript(id: "big", result: result, limit: .max))
        #expect(Self.isASCII(built.script))
        #expect(
            built.script.contains(#"\u2713"#) && built.script.contains(#"\ud83d\ude00"#)
                && built.script.contains(#"\u003ctail>"#))
        #expect(built.script == (try SuccessReplyScriptTests.generalScript(id: "big", result: result)))
        let reply = try JSONDecoder().decode(Reply.self, from: try Self.argument(of: built.script))
        #expect(reply == Reply(id: "big", data: texts))
        // The message length is the JSON's, not the script's.
        #expect(
            built.messageBytes
                == ((try ReplyPipeline.json(
                    OutboundMessage.reply(id: "big", result: .success(RawJSON(checked: result)))))
                    .count))
    }

    @Test("mostly non-Latin text (CJK) keeps its characters: escapes would triple it")
    func mostlyNonASCII() throws {
        let texts = [String(repeating: "漢字かな交じり文", count: 1_000)]
        let result = try BridgeJSON.encode(texts)
        let built = try #require(ReplyPipeline.successScript(id: "cjk", result: result, limit: .max))
        #expect(!Self.isASCII(built.script))
        #expect(built.script.utf8.count < result.count + 200)
        #expect(built.script == (try SuccessReplyScriptTests.generalScript(id: "cjk", result: result)))
        #expect(
            try JSONDecoder().decode(Reply.self, from: try Self.argument(of: built.script))
                == Reply(id: "cjk", data: texts))
    }

    @Test("small messages keep their characters, whatever their share of non-ASCII")
    func small() throws {
        let texts = ["✓ " + String(repeating: "a", count: 100)]
        let result = try BridgeJSON.encode(texts)
        let built = try #require(ReplyPipeline.successScript(id: "s", result: result, limit: .max))
        #expect(built.script.contains("✓"))
        #expect(built.script == (try SuccessReplyScriptTests.generalScript(id: "s", result: result)))
    }

    @Test("the rule at its edges: size over the threshold, at most one non-ASCII byte in 16")
    func rule() {
        let threshold = JavaScriptEmbedding.asciiThreshold
        #expect(!JavaScriptEmbedding.prefersASCII(messageBytes: threshold, nonASCIIBytes: 1))
        #expect(JavaScriptEmbedding.prefersASCII(messageBytes: threshold + 1, nonASCIIBytes: 1))
        #expect(!JavaScriptEmbedding.prefersASCII(messageBytes: threshold + 1, nonASCIIBytes: 0))
        #expect(JavaScriptEmbedding.prefersASCII(messageBytes: 16_000, nonASCIIBytes: 1_000))
        #expect(!JavaScriptEmbedding.prefersASCII(messageBytes: 16_000, nonASCIIBytes: 1_001))
    }

    @Test("counting non-ASCII bytes: every length and position around the eight-byte step")
    func counting() {
        for length in 0...40 {
            for position in 0..<max(1, length) {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                if length > 0 { bytes[position] = 0xE2 }
                if length > 3 { bytes[length - 1] = 0x80 }
                let expected = bytes.filter { $0 >= 0x80 }.count
                #expect(
                    bytes.withUnsafeBufferPointer { JavaScriptEmbedding.countNonASCII($0) } == expected,
                    "\(length) @ \(position)")
            }
        }
    }

    @Test("events and progress (PageScript.build) follow the same rule")
    func generalBuilder() throws {
        let value = ["note": "✓", "body": String(repeating: "x", count: 10_000)]
        let script = try PageScript.build(calling: .receive, encoding: value)
        #expect(Self.isASCII(script) && script.contains(#"\u2713"#))
        let decoded = try JSONDecoder().decode([String: String].self, from: try Self.argument(of: script))
        #expect(decoded == value)
    }
}
