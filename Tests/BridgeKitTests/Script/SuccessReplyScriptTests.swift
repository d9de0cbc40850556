import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: the success-reply script written straight into a string's storage
/// (`ReplyPipeline.successScriptInPlace`, a counting pass then a writing pass) miscounts its length,
/// drops or changes a byte, or skips an escape, so the page gets a different reply than the
/// general path (encode the whole message, then build the script) would send.
@Suite("Success-reply scripts written in place: byte-identical to the general path")
struct SuccessReplyScriptTests {
    /// The script the general path builds for the same reply (the reference).
    static func generalScript(id: String, result: Data) throws -> String {
        let message = OutboundMessage.reply(id: id, result: .success(RawJSON(checked: result)))
        return PageScript.build(calling: .receive, jsonParts: try ReplyPipeline.json(message).parts)
    }

    static func json(_ value: some Encodable) throws -> Data {
        try BridgeJSON.encode(value)
    }

    /// Texts with every kind of byte the escaper treats specially, and runs around its
    /// eight-byte scanning step.
    static let texts: [String] =
        [
            "",
            "plain",
            "</script><!-- <<< a<b",
            "line\u{2028}para\u{2029}end \u{2028}\u{2029}",
            "é ✓ 😀 Grüße \u{7F} \u{80} \u{FFFF} \u{10FFFF} \u{E2}\u{80}",
            #"quote " backslash \ newline \#n tab \#t nul \#u{0} ctrl \#u{1F}"#,
            "${x} `tick` '",
        ] + (0..<20).map { String(repeating: "a", count: $0) + "<" + String(repeating: "\u{2028}", count: $0 % 3) }

    @Test("strings, arrays and objects: identical bytes, exact length", arguments: 0..<texts.count)
    func identical(index: Int) throws {
        let text = Self.texts[index]
        let results = [
            try Self.json(text),
            try Self.json([text, text]),
            try Self.json(["k<": text, "n": "1"]),
            Data(
                #"{"big":123456789012345678901,"safe":9007199254740991,"neg":-9223372036854775808,"t":"\#(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\u{0}", with: "\\u0000").replacingOccurrences(of: "\u{1F}", with: "\\u001f"))"}"#
                    .utf8),
        ]
        for result in results {
            let inPlace = try #require(ReplyPipeline.successScriptInPlace(id: "cb_7", result: result))
            #expect(Array(inPlace.utf8) == Array(try Self.generalScript(id: "cb_7", result: result).utf8))
            #expect(inPlace == ReplyPipeline.successScriptInBuffer(id: "cb_7", result: result))
            let built = try #require(ReplyPipeline.successScript(id: "cb_7", result: result, limit: .max))
            #expect(built.script == inPlace)
            #expect(
                built.messageBytes
                    == ((try ReplyPipeline.json(
                        OutboundMessage.reply(id: "cb_7", result: .success(RawJSON(checked: result)))))
                        .count))
        }
    }

    @Test("scalars and every result length from 0 to 64 bytes of content")
    func lengths() throws {
        for length in 0...64 {
            for filler in ["x", "<", "\u{2028}", "é"] {
                let text = String(repeating: filler, count: length)
                let result = try Self.json(text)
                let inPlace = try #require(ReplyPipeline.successScriptInPlace(id: "id-\(length)", result: result))
                #expect(
                    inPlace == (try Self.generalScript(id: "id-\(length)", result: result)), "\(length) × \(filler)")
            }
        }
        for scalar in ["null", "true", "0", "-1.5e3", "12345678901234567890", "\"\""] {
            let result = Data(scalar.utf8)
            #expect(
                ReplyPipeline.successScriptInPlace(id: "s", result: result)
                    == (try Self.generalScript(id: "s", result: result)))
        }
    }

    @Test("a large result full of escapes (the script over twice the result)")
    func large() throws {
        let text = String(repeating: "<<<<\u{2028}a\u{2029}é\"\\", count: 40_000)
        let result = try Self.json([text])
        let inPlace = try #require(ReplyPipeline.successScriptInPlace(id: "big", result: result))
        #expect(inPlace.utf8.count > 2 * result.count)
        #expect(inPlace == (try Self.generalScript(id: "big", result: result)))
    }

    @Test("results around the one-pass limit, in one pass and counted first: identical bytes")
    func singlePassLimit() throws {
        let limit = ReplyPipeline.singlePassLimit
        for filler in ["x", "<", "\u{2028}"] {
            // JSON text of `limit - 2 ... limit + 2` bytes: a string of n characters and its quotes.
            let unit = filler.utf8.count
            for bytes in (limit - 2)...(limit + 2) where (bytes - 2) % unit == 0 {
                let result = try Self.json(String(repeating: filler, count: (bytes - 2) / unit))
                #expect(result.count == bytes)
                let inPlace = try #require(ReplyPipeline.successScriptInPlace(id: "edge", result: result))
                #expect(inPlace == (try Self.generalScript(id: "edge", result: result)), "\(bytes) bytes of \(filler)")
            }
        }
        let proto = Data((#"{"__proto__":{"a":""# + String(repeating: "<", count: limit) + #""}}"#).utf8)
        #expect(ReplyPipeline.successScriptInPlace(id: "p", result: proto) == nil)
        #expect(
            ReplyPipeline.successScript(id: "p", result: proto, limit: .max)?.script
                == (try Self.generalScript(id: "p", result: proto)))
    }

    @Test("a __proto__ key: not in place; successReply still matches the general path (JSON.parse)")
    func protoKey() throws {
        let result = Data(#"{"__proto__":{"polluted":"<"}}"#.utf8)
        #expect(ReplyPipeline.successScriptInPlace(id: "p", result: result) == nil)
        let built = try #require(ReplyPipeline.successScript(id: "p", result: result, limit: .max))
        #expect(built.script.contains("JSON.parse("))
        #expect(built.script == (try Self.generalScript(id: "p", result: result)))
    }

    @Test("an id that needs an escape, or a message over the limit: nil (the general path answers)")
    func refused() throws {
        let result = try Self.json("x")
        #expect(ReplyPipeline.successScript(id: "a\"b", result: result, limit: .max) == nil)
        #expect(ReplyPipeline.successScript(id: "a<b", result: result, limit: .max) == nil)
        #expect(ReplyPipeline.successScript(id: "é", result: result, limit: .max) == nil)
        let bytes =
            (try ReplyPipeline.json(OutboundMessage.reply(id: "ok", result: .success(RawJSON(checked: result))))).count
        #expect(ReplyPipeline.successScript(id: "ok", result: result, limit: bytes)?.messageBytes == bytes)
        #expect(ReplyPipeline.successScript(id: "ok", result: result, limit: bytes - 1) == nil)
    }
}
