public import Foundation

/// Turns JSON text into a JavaScript expression that evaluates to the same value.
///
/// Since ES2019 every JSON text is a valid JavaScript expression, but three gaps remain, and
/// this type closes each of them in one pass over the bytes:
///
/// - U+2028 and U+2029 end a string literal in engines older than ES2019; both are written as
///   `\u2028` and `\u2029` (field case R02).
/// - `<` inside string data could close an HTML `<script>` element (`</script>`) or open a
///   comment (`<!--`) where the same text is embedded in markup; every `<` becomes `\u003c`
///   (field case R06).
/// - Integers outside ±(2^53−1) lose digits when JavaScript reads them as numbers; they are
///   written as JSON strings of the same digits (field case R11, the "string" policy).
///
/// An object literal with the key `"__proto__"` sets the prototype instead of creating a
/// property (ECMA-262 §B.3.1), so such a text is embedded as `JSON.parse("...")` instead,
/// which creates an own property exactly as the page's own `JSON.parse` would.
public enum JavaScriptEmbedding {
    /// The largest integer magnitude JavaScript represents exactly: 2^53 − 1.
    public static let maxSafeInteger: UInt64 = 9_007_199_254_740_991

    /// Returns a JavaScript expression for the JSON text `json`.
    ///
    /// - Parameter json: valid UTF-8 JSON text, as produced by `JSONEncoder` or
    ///   `JSONSerialization`. Any top-level value is accepted.
    /// - Returns: an expression safe to place in argument position of a script. Its length in
    ///   UTF-8 bytes is linear in the input.
    public static func expression(fromJSON json: Data) -> String {
        var out = [UInt8]()
        out.reserveCapacity(json.count + json.count / 32 + 16)
        let hasProtoKey = json.withUnsafeBytes { raw -> Bool in
            escape(raw.bindMemory(to: UInt8.self), into: &out)
        }
        if hasProtoKey {
            return "JSON.parse(" + stringLiteral(String(decoding: json, as: UTF8.self)) + ")"
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns a double-quoted JavaScript string literal for `text`, escaped like JSON and with
    /// U+2028, U+2029 and `<` escaped as above.
    public static func stringLiteral(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count + 2)
        out.append(quote)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += [backslash, quote]
            case 0x5C: out += [backslash, backslash]
            case 0x0A: out += [backslash, UInt8(ascii: "n")]
            case 0x0D: out += [backslash, UInt8(ascii: "r")]
            case 0x09: out += [backslash, UInt8(ascii: "t")]
            case 0x3C, 0x2028, 0x2029, 0x00..<0x20, 0x7F:
                appendUnicodeEscape(UInt16(scalar.value), into: &out)
            default:
                out.append(contentsOf: String(Character(scalar)).utf8)
            }
        }
        out.append(quote)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - The one pass

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let protoKey = Array("\"__proto__\"".utf8)

    /// Copies `bytes` into `out`, escaping as described on the type.
    /// - Returns: whether a `"__proto__"` object key was seen.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        var index = 0
        let count = bytes.count
        var sawProtoKey = false
        while index < count {
            let byte = bytes[index]
            if byte == quote {
                let start = index
                out.append(byte)
                index += 1
                while index < count {
                    let b = bytes[index]
                    if b == backslash, index + 1 < count {
                        out.append(b)
                        out.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    if b == quote {
                        out.append(b)
                        index += 1
                        break
                    }
                    if b == UInt8(ascii: "<") {
                        appendUnicodeEscape(0x3C, into: &out)
                    } else if b == 0xE2, index + 2 < count, bytes[index + 1] == 0x80,
                              bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                        appendUnicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029, into: &out)
                        index += 2
                    } else {
                        out.append(b)
                    }
                    index += 1
                }
                if !sawProtoKey, index - start == protoKey.count, isProtoKey(bytes, from: start, end: index) {
                    sawProtoKey = true
                }
            } else if byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                index = copyNumber(bytes, from: index, into: &out)
            } else {
                out.append(byte)
                index += 1
            }
        }
        return sawProtoKey
    }

    /// Whether the string token `bytes[start..<end]` is `"__proto__"` used as an object key.
    private static func isProtoKey(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Bool {
        for offset in 0..<protoKey.count where bytes[start + offset] != protoKey[offset] {
            return false
        }
        var next = end
        while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x0A || bytes[next] == 0x0D || bytes[next] == 0x09 {
            next += 1
        }
        return next < bytes.count && bytes[next] == UInt8(ascii: ":")
    }

    /// Copies one JSON number token, quoting an integer outside ±(2^53−1).
    /// - Returns: the index after the token.
    private static func copyNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into out: inout [UInt8]) -> Int {
        var end = start
        var isInteger = true
        while end < bytes.count {
            let b = bytes[end]
            if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") || b == UInt8(ascii: "-") {
                end += 1
            } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: "+") {
                isInteger = false
                end += 1
            } else {
                break
            }
        }
        let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let digitCount = token.count - (token.first == UInt8(ascii: "-") ? 1 : 0)
        if isInteger && digitCount >= 16 && !isSafeInteger(token) {
            out.append(quote)
            out.append(contentsOf: token)
            out.append(quote)
        } else {
            out.append(contentsOf: token)
        }
        return end
    }

    private static func isSafeInteger(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        var magnitude: UInt64 = 0
        for b in token where b != UInt8(ascii: "-") {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return false }
            magnitude = sum
        }
        return magnitude <= maxSafeInteger
    }

    private static func appendUnicodeEscape(_ unit: UInt16, into out: inout [UInt8]) {
        out += [backslash, UInt8(ascii: "u"),
                hexDigits[Int(unit >> 12 & 0xF)], hexDigits[Int(unit >> 8 & 0xF)],
                hexDigits[Int(unit >> 4 & 0xF)], hexDigits[Int(unit & 0xF)]]
    }
}
