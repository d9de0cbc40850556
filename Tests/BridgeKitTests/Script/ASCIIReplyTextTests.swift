import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: the reply written in ASCII in one pass (`OutboundJSON.replyText`,
/// `JavaScriptEmbedding.appendASCIIJSON`) drops or mangles a character, miscounts its own length,
/// or loses the script builder's escapes.
@Suite("Reply text in ASCII, written in one pass")
struct ASCIIReplyTextTests {
    static func ascii(_ json: String) -> String {
        var out = [UInt8]()
        var bytes = Array(json.utf8)
        bytes.withUnsafeMutableBufferPointer {
            JavaScriptEmbedding.appendASCIIJSON(fromJSON: UnsafeBufferPointer($0), to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("every non-ASCII character becomes \\u escapes (surrogate pairs above U+FFFF); the value is the same")
    func nonASCII() throws {
        let text = "é ✓ 😀 \u{2028}\u{2029} Grüße \u{7F} \u{80} \u{FFFF} \u{10FFFF}"
        let json = String(decoding: try JSONEncoder().encode([text]), as: UTF8.self)
        let out = Self.ascii(json)
        #expect(out.utf8.allSatisfy { $0 < 0x80 })
        #expect(out.contains(#"\u00e9"#) && out.contains(#"\u2713"#) && out.contains(#"\ud83d\ude00"#))
        #expect(out.contains(#"\u2028\u2029"#) && out.contains(#"\udbff\udfff"#))
        #expect(try JSONDecoder().decode([String].self, from: Data(out.utf8)) == [text])
    }

    @Test("keeps the script builder's escapes: < and unsafe integers as strings; safe numbers and escapes untouched")
    func scriptEscapes() {
        let json =
            #"{"a":"</script> \"q\" \\ \u00e9","big":12345678901234567890,"neg":-9007199254740992,"ok":9007199254740991,"f":1.5e300}"#
        #expect(
            Self.ascii(json)
                == #"{"a":"\u003c/script> \"q\" \\ \u00e9","big":"12345678901234567890","neg":"-9007199254740992","ok":9007199254740991,"f":1.5e300}"#
        )
    }

    @Test("ASCII input is copied unchanged")
    func plain() {
        let json = #"{"k":[1,true,null,"text with \n escapes"]}"#
        #expect(Self.ascii(json) == json)
    }

    @Test("replyText: the counted and the written pass agree, across pieces, for every kind of character")
    func replyTextMatchesGrowingBuffer() throws {
        let samples = [
            "", "plain", "é", "✓<", "😀", "\u{2028}", "a\u{0}b", String(repeating: "Grüße ✓ 😀 <", count: 500),
        ]
        for sample in samples {
            let encoded = try JSONEncoder().encode(["t": sample])
            // Pieces start and end outside strings in real replies; here: the head `{` and the rest.
            let pieces = OutboundJSON(parts: [encoded.prefix(1), encoded.dropFirst()])
            let reply = pieces.replyText
            #expect(
                reply == Self.ascii(String(decoding: encoded, as: UTF8.self)), "sample of \(sample.count) characters")
            #expect(reply.utf8.allSatisfy { $0 < 0x80 })
            #expect(try JSONDecoder().decode([String: String].self, from: Data(reply.utf8)) == ["t": sample])
        }
    }

    @Test("JavaScriptEmbedding's script expression keeps non-ASCII characters as they are")
    func scriptsUnchanged() {
        #expect(JavaScriptEmbedding.expression(fromJSON: Data(#"["é✓😀<\u2028"]"#.utf8)) == #"["é✓😀\u003c\u2028"]"#)
        #expect(JavaScriptEmbedding.expression(fromJSON: Data("[\"é\u{2028}\"]".utf8)) == #"["é\u2028"]"#)
    }
}
