import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: a scanner that reads eight bytes at a time misses a special byte in one lane
/// of the word, or in the bytes after the last whole word, and lets it through unescaped or
/// accepts an envelope the general path would refuse.
@Suite("Eight bytes at a time: the escaper and the envelope scanner see a special byte in every lane")
struct WordScanningTests {
    /// Special characters, each placed at every offset from 0 to 19 of a string of 20 `a`s.
    static let specials: [String] = ["<", "\u{2028}", "\u{2029}", "\"", "\\", "\u{1}", "\n", "✓", "é", "😀", "\u{7F}"]

    static func strings() -> [String] {
        specials.flatMap { special in
            (0..<20).map { offset in
                String(repeating: "a", count: offset) + special + String(repeating: "a", count: 19 - offset)
            }
        }
    }

    @Test("the script expression and the ASCII reply keep the value and leave no raw <, U+2028 or U+2029")
    func escaperLanes() throws {
        for text in Self.strings() {
            let json = try JSONEncoder().encode(["k": text, "<": text])
            let expression = JavaScriptEmbedding.expression(fromJSON: json)
            #expect(
                !expression.contains("<") && !expression.contains("\u{2028}") && !expression.contains("\u{2029}"),
                "\(text.debugDescription)")
            let value = try JSONDecoder().decode([String: String].self, from: Data(expression.utf8))
            #expect(value == ["k": text, "<": text])

            let reply = OutboundJSON(json).replyText
            #expect(reply.utf8.allSatisfy { $0 < 0x80 }, "\(text.debugDescription)")
            #expect(!reply.contains("<"))
            #expect(try JSONDecoder().decode([String: String].self, from: Data(reply.utf8)) == ["k": text, "<": text])
        }
    }

    @Test("the envelope scan reads ids and task names with a special byte in any lane as the general path does")
    func envelopeLanes() throws {
        for text in Self.strings() {
            let quoted = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
            for body in [
                #"{"v":1,"kind":"call","id":"# + quoted + #","task":"t","options":[1]}"#,
                #"{"kind":"call","v":1,"task":"# + quoted + #","id":"x"}"#,
            ] {
                let scan = Array(body.utf8).withUnsafeBufferPointer { CallEnvelopeScan($0) }
                let plain = text.unicodeScalars.allSatisfy { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
                // Strings with escapes or control characters are left to the general path.
                #expect((scan != nil) == plain, "\(body.debugDescription)")
                if let scan {
                    #expect(scan.id == (body.hasPrefix(#"{"v""#) ? text : "x"))
                    #expect(scan.task == (body.hasPrefix(#"{"v""#) ? "t" : text))
                }
            }
        }
    }

    @Test("a raw control character in any lane of an id makes the scan give up (the general path refuses it)")
    func rawControlCharacters() {
        for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F] {
            for offset in 0..<20 {
                var id = [UInt8](repeating: UInt8(ascii: "a"), count: 20)
                id[offset] = control
                let body = Array(#"{"v":1,"kind":"call","id":""#.utf8) + id + Array(#"","task":"t"}"#.utf8)
                #expect(body.withUnsafeBufferPointer { CallEnvelopeScan($0) } == nil, "byte \(control) at \(offset)")
            }
        }
    }

    @Test("invalid UTF-8 in an id or a task name makes the scan give up; valid non-ASCII text is read exactly")
    func invalidUTF8() {
        let invalid: [[UInt8]] = [
            [0xFF], [0x80], [0xC3], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        ]
        for bytes in invalid {
            for offset in [0, 5, 11] {
                var text = [UInt8](repeating: UInt8(ascii: "a"), count: 12)
                text.insert(contentsOf: bytes, at: offset)
                for body in [
                    Array(#"{"v":1,"kind":"call","id":""#.utf8) + text + Array(#"","task":"t"}"#.utf8),
                    Array(#"{"v":1,"kind":"call","id":"x","task":""#.utf8) + text + Array(#""}"#.utf8),
                ] {
                    #expect(body.withUnsafeBufferPointer { CallEnvelopeScan($0) } == nil, "\(bytes) at \(offset)")
                }
            }
        }
        let body = Array(#"{"v":1,"kind":"call","id":"é✓😀","task":"Grüße"}"#.utf8)
        let scan = body.withUnsafeBufferPointer { CallEnvelopeScan($0) }
        #expect(scan?.id == "é✓😀")
        #expect(scan?.task == "Grüße")
    }

    @Test("after the shim's prefix a second v or kind is still a duplicate, and anything else is read as before")
    func shimPrefix() {
        let cases: [(String, Bool)] = [
            (#"{"v":1,"kind":"call","id":"a","task":"t"}"#, true),
            (#"{"v":1,"kind":"call","v":1,"task":"t"}"#, false),
            (#"{"v":1,"kind":"call","kind":"call","task":"t"}"#, false),
            (#"{"v":1,"kind":"call","#, false),
            (#"{"v":1,"kind":"call",}"#, false),
            (#"{"v":1,"kind":"call","task":"t"} x"#, false),
            (#"{"v":1,"kind":"call","task":"t","options":{"a":[[1]]}}"#, true),
        ]
        for (body, accepted) in cases {
            let scan = Array(body.utf8).withUnsafeBufferPointer { CallEnvelopeScan($0) }
            #expect((scan != nil) == accepted, "\(body)")
        }
        let deep = Array(#"{"v":1,"kind":"call","task":"t","options":{"a":[[1]]}}"#.utf8)
        #expect(deep.withUnsafeBufferPointer { CallEnvelopeScan($0)?.depth } == 4)
    }

    @Test("the JSON check sees a byte that ends, escapes or spoils a string in every lane, and every length of string")
    func validatorLanes() {
        func valid(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBufferPointer { JSONValidator.isValid($0, maxDepth: 8) }
        }
        func string(_ middle: [UInt8], at offset: Int) -> [UInt8] {
            [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: offset) + middle
                + Array(repeating: UInt8(ascii: "a"), count: 19 - offset) + [UInt8(ascii: "\"")]
        }
        let accepted: [[UInt8]] = [
            Array("\\n".utf8), Array("\\u00e9".utf8), Array("\\\"".utf8), Array("é".utf8), Array("✓".utf8),
            Array("😀".utf8), [0x7F], [0x20],
        ]
        let refused: [[UInt8]] = [
            [0x01], [0x0A], [0x1F], [0x00], [0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], Array("\\x".utf8),
            Array("\\u12G".utf8), [UInt8(ascii: "\"")],
        ]
        for offset in 0..<20 {
            for middle in accepted {
                #expect(valid(string(middle, at: offset)), "\(middle) at \(offset)")
                #expect(valid(Array("{\"k\":".utf8) + string(middle, at: offset) + [UInt8(ascii: "}")]))
            }
            for middle in refused {
                #expect(!valid(string(middle, at: offset)), "\(middle) at \(offset)")
            }
        }
        for length in 0..<24 {
            let plain = Array(repeating: UInt8(ascii: "b"), count: length)
            #expect(valid([UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")]), "length \(length)")
            #expect(!valid([UInt8(ascii: "\"")] + plain), "unterminated, length \(length)")
            #expect(!valid([UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\\")]), "a lone backslash at the end")
        }
    }
}
