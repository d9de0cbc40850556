import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: text that is not JSON reaching a page script as if it were (a `RawJSON`
/// payload spliced into a reply), or valid JSON refused.
@Suite("JSONValidator: exactly RFC 8259 JSON in valid UTF-8")
struct JSONValidatorTests {
    static func valid(_ text: String, maxDepth: Int = 64) -> Bool {
        valid(Array(text.utf8), maxDepth: maxDepth)
    }

    static func valid(_ bytes: [UInt8], maxDepth: Int = 64) -> Bool {
        bytes.withUnsafeBufferPointer { JSONValidator.isValid($0, maxDepth: maxDepth) }
    }

    @Test(
        "accepts every kind of value",
        arguments: [
            "null", "true", "false", "0", "-0", "1", "-12", "3.25", "1e9", "1E+9", "2.5e-3", "12345678901234567890123",
            "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\\uD83D\\uDE00\"", "\"\\ud800\"", "\"Grüße ✓ 😀\"",
            "[]", "{}", " [1, [2, [3]], {\"a\": {\"b\": []}}] ", "{\"\":0,\"a\":[true,false,null]}", "\t\r\n 1 \n",
            "\"</script><script>alert(1)</script>\"", "\"\u{2028}\u{2029}\"",
        ])
    func acceptsValid(_ text: String) {
        #expect(Self.valid(text))
    }

    @Test(
        "rejects text that is not one JSON value",
        arguments: [
            "", " ", "nul", "nulll", "True", "NaN", "Infinity", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 2",
            "\"abc", "\"a\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"tab\there\"", "\"line\nbreak\"", "'single'",
            "[", "[1,]", "[,1]", "[1 2]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}", "{\"a\" 1}", "{1:2}",
            "[1]]", "{}}", "1);alert(1);(", "\u{FEFF}1", "//x\n1", "[1]/*x*/",
        ])
    func rejectsInvalid(_ text: String) {
        #expect(!Self.valid(text))
    }

    @Test(
        "rejects malformed UTF-8 inside strings (RFC 3629)",
        arguments: [
            [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0xAF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC3], [0xE2, 0x82], [0xC3, 0x28],
        ] as [[UInt8]])
    func rejectsMalformedUTF8(_ sequence: [UInt8]) {
        #expect(!Self.valid([UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]))
        #expect(Self.valid([UInt8(ascii: "\"")] + Array("é€😀".utf8) + [UInt8(ascii: "\"")]))
    }

    @Test("nesting deeper than the limit is refused; at the limit it is accepted")
    func depthLimit() {
        #expect(Self.valid(String(repeating: "[", count: 3) + String(repeating: "]", count: 3), maxDepth: 3))
        #expect(!Self.valid(String(repeating: "[", count: 4) + String(repeating: "]", count: 4), maxDepth: 3))
        #expect(!Self.valid("{\"a\":{\"b\":{\"c\":{}}}}", maxDepth: 3))
        #expect(!Self.valid(String(repeating: "[", count: 100_000), maxDepth: 64))
    }

    /// Mutations of valid documents (one byte changed, dropped or doubled) must be judged as
    /// Foundation's parser judges them, wherever Foundation follows RFC 8259.
    @Test("agrees with JSONSerialization on 20,000 mutated documents")
    func agreesWithFoundation() throws {
        let seeds = [
            #"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d\"e\\f\u00e9"},"g":""}"#,
            #"[{"id":1,"name":"Grüße <b>","tags":["x","y"]},{"id":-0.5e-3}]"#, #""ab\ncd""#, "123",
        ]
        let alphabet = Array(#"{}[],:"\ 0123456789.-+eEtrufalsn/bu"#.utf8) + [0x09, 0x0A, 0x7F, 0xC3, 0xA9]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var disagreements: [String] = []
        for round in 0..<20_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0...next(3) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes[at] = alphabet[next(alphabet.count)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "0")] }
            }
            let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
            // Foundation also accepts a few things RFC 8259 does not; only count real disagreements.
            if foundation != Self.valid(bytes), !Self.foundationLeniency(bytes) {
                disagreements.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(disagreements.isEmpty, "first: \(disagreements.prefix(5))")
    }

    /// Inputs where Foundation's parser is knowingly more lenient or stricter than RFC 8259.
    static func foundationLeniency(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        // Foundation rejects escaped lone surrogates, and refuses numbers that do not fit a Double.
        return text.contains("\\u") || text.range(of: #"[0-9][eE][+-]?[0-9]{3,}"#, options: .regularExpression) != nil
            || bytes.contains(0x7F)
    }
}
