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
/// which creates an own property exactly as the page's own `JSON.parse` would. Keys are compared
/// after JSON unescaping, as the engine reads them: `"\u005f_proto__"`, `"__pr\u006fto__"` and
/// every other escaped spelling count too (issue 20, item 4). Only a key with a backslash is
/// unescaped, so the usual text pays nothing for it.
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
        json.withUnsafeBytes { raw in
            appendExpression(fromJSON: raw.bindMemory(to: UInt8.self), to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the expression for the JSON text `json` to `out` (see ``expression(fromJSON:)``),
    /// so a script can be built in one buffer without copying the payload again.
    /// - Parameter asciiOnly: also write every non-ASCII character as a `\u` escape
    ///   (``prefersASCII(messageBytes:nonASCIIBytes:)``).
    static func appendExpression(
        fromJSON json: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], asciiOnly: Bool = false
    ) {
        let start = out.count
        guard escape(json, into: &out, asciiOnly: asciiOnly) else { return }
        // A `__proto__` key: embed the text through `JSON.parse` instead (rare; see the type).
        out.removeSubrange(start...)
        out.append(contentsOf: "JSON.parse(".utf8)
        out.append(contentsOf: stringLiteral(String(decoding: json, as: UTF8.self)).utf8)
        out.append(UInt8(ascii: ")"))
    }

    /// Writes the expression for the JSON text `json` (see ``expression(fromJSON:)``) to `out`
    /// when it has no `"__proto__"` key: the text with the escapes, not wrapped. Works with any
    /// sink, so a caller can count the output exactly and then write it into storage of that size.
    /// - Returns: whether a `"__proto__"` object key was seen; `out` then holds text that is not
    ///   the expression (it needs `JSON.parse`, ``appendExpression(fromJSON:to:asciiOnly:)``) and must be
    ///   discarded.
    static func appendExpressionUnlessProtoKey<Sink: EscapeSink>(
        fromJSON json: UnsafeBufferPointer<UInt8>,
        to out: inout Sink, asciiOnly: Bool = false
    ) -> Bool {
        escape(json, into: &out, asciiOnly: asciiOnly)
    }

    /// Appends the JSON text `json` with the same escapes as ``expression(fromJSON:)`` (U+2028,
    /// U+2029 and `<` as `\u` escapes, unsafe integers as strings) but never wrapped in
    /// `JSON.parse`: the result is JSON text, for a reply the page reads with `JSON.parse`
    /// (where a `"__proto__"` key is an ordinary own property).
    static func appendJSON(fromJSON json: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        _ = escape(json, into: &out, asciiOnly: false)
    }

    /// Writes the JSON text `json` with the escapes of ``appendJSON(fromJSON:to:)`` and, in the same
    /// pass, every non-ASCII character as `\uXXXX` (a surrogate pair of escapes above U+FFFF), so
    /// the output is pure ASCII. Non-ASCII bytes only occur inside JSON strings in valid JSON text,
    /// where such an escape means the same character. Invalid UTF-8 becomes `\ufffd`.
    static func appendASCIIJSON<Sink: EscapeSink>(fromJSON json: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
        _ = escape(json, into: &out, asciiOnly: true)
    }

    // MARK: - ASCII scripts

    /// Messages up to this many bytes of JSON keep their non-ASCII characters as they are.
    static let asciiThreshold = 4096

    /// Whether the script of a message of `messageBytes` bytes of JSON, `nonASCIIBytes` of them
    /// non-ASCII (``countNonASCII(_:)``), is written in pure ASCII (every non-ASCII character as
    /// a `\u` escape, which means the same character in a JSON string).
    ///
    /// WebKit keeps a script string whose characters are all ASCII in one byte per character, but
    /// a single character above U+00FF makes the whole string two bytes per character: the
    /// engine's copy of the script and the copy sent to the web process double. For a large
    /// message with few non-ASCII characters (at most one byte in 16), the escapes cost less than
    /// that: an escaped character takes at most six bytes per byte of its UTF-8 form, so the ASCII
    /// script is at most 1.32 times the JSON's length, against at least 1.88 times for the
    /// two-byte string. Text that is mostly non-Latin (CJK, say) stays as it is. Small messages
    /// (up to ``asciiThreshold`` bytes) always stay as they are: their memory does not matter.
    static func prefersASCII(messageBytes: Int, nonASCIIBytes: Int) -> Bool {
        messageBytes > asciiThreshold && nonASCIIBytes > 0 && nonASCIIBytes <= messageBytes / 16
    }

    /// ``prefersASCII(messageBytes:nonASCIIBytes:)`` for a message of `messageBytes` bytes whose
    /// non-ASCII bytes are all in `parts` (the rest is ASCII); the parts are only read when the
    /// message is over ``asciiThreshold``. The one choice both script builders make.
    static func prefersASCII(messageBytes: Int, nonASCIIIn parts: some Sequence<Data>) -> Bool {
        guard messageBytes > asciiThreshold else { return false }
        let nonASCII = parts.reduce(0) { sum, part in
            sum + part.withUnsafeBytes { countNonASCII($0.bindMemory(to: UInt8.self)) }
        }
        return prefersASCII(messageBytes: messageBytes, nonASCIIBytes: nonASCII)
    }

    /// The number of bytes of `bytes` that are not ASCII (0x80 and above). Reads eight bytes at a time.
    static func countNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var count = 0
        var index = 0
        while bytes.count - index >= 8 {
            count += ByteLanes.nonASCII(ByteLanes.load(base, at: index)).nonzeroBitCount
            index += 8
        }
        while index < bytes.count {
            if base[index] >= 0x80 { count += 1 }
            index += 1
        }
        return count
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
    /// `__proto__` in UTF-16 code units, for keys written with escapes.
    private static let protoUnits = Array("__proto__".utf16)
    /// The longest string token that can unescape to `__proto__`: nine `\uXXXX` escapes and quotes.
    private static let longestEscapedProtoKey = 2 + 9 * 6

    /// Whether `byte` ends a run of plain string content: `"`, `\\`, `<`, and 0xE2 (the first
    /// byte of U+2028 and U+2029) or, in ASCII mode, any byte of a non-ASCII character.
    @inline(__always)
    private static func stopsStringRun(_ byte: UInt8, asciiOnly: Bool) -> Bool {
        byte == quote || byte == backslash || byte == UInt8(ascii: "<") || (asciiOnly ? byte >= 0x80 : byte == 0xE2)
    }

    /// The index of the first byte at or after `index` that ends a run of plain string content
    /// (``stopsStringRun(_:asciiOnly:)``), or `count`. Reads eight bytes at a time (``ByteLanes``).
    @inline(__always)
    private static func nextStop(_ base: UnsafePointer<UInt8>, from index: Int, count: Int, asciiOnly: Bool) -> Int {
        var index = index
        while count - index >= 8 {
            let word = ByteLanes.load(base, at: index)
            var found =
                ByteLanes.equal(word, quote) | ByteLanes.equal(word, backslash)
                | ByteLanes.equal(word, UInt8(ascii: "<"))
            found |= asciiOnly ? ByteLanes.nonASCII(word) : ByteLanes.equal(word, 0xE2)
            if found != 0 { return index + ByteLanes.firstLane(found) }
            index += 8
        }
        while index < count, !stopsStringRun(base[index], asciiOnly: asciiOnly) {
            index += 1
        }
        return index
    }

    /// Copies `bytes` into `out`, escaping as described on the type.
    ///
    /// Most JSON needs few or no changes, so the loop only finds the places that do and copies
    /// the unchanged runs between them in bulk (`flushed` marks how far the input was copied).
    /// - Returns: whether a `"__proto__"` object key was seen.
    private static func escape<Sink: EscapeSink>(
        _ bytes: UnsafeBufferPointer<UInt8>, into out: inout Sink, asciiOnly: Bool
    ) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var index = 0
        var flushed = 0
        var sawProtoKey = false
        func flush(upTo end: Int) {
            let end = min(end, count)
            if end > flushed {
                out.append(contentsOf: UnsafeBufferPointer(start: base + flushed, count: end - flushed))
                flushed = end
            }
        }
        do {
            while index < count {
                let byte = base[index]
                if byte == quote {
                    let start = index
                    var hasEscape = false
                    index += 1
                    while index < count {
                        index = nextStop(base, from: index, count: count, asciiOnly: asciiOnly)
                        guard index < count else { break }
                        let b = base[index]
                        if b == quote { break }
                        if b == backslash {
                            hasEscape = true
                            index += 2
                            continue
                        }
                        if b == UInt8(ascii: "<") {
                            flush(upTo: index)
                            appendUnicodeEscape(0x3C, into: &out)
                            flushed = index + 1
                        } else if asciiOnly {
                            // Any non-ASCII character (U+2028 and U+2029 included) as `\u` escapes.
                            flush(upTo: index)
                            let (scalar, length) = decodeScalar(bytes, at: index)
                            for unit in scalar.utf16 {
                                appendUnicodeEscape(unit, into: &out)
                            }
                            index += length - 1
                            flushed = index + 1
                        } else if index + 2 < count, base[index + 1] == 0x80,
                            base[index + 2] == 0xA8 || base[index + 2] == 0xA9
                        {
                            flush(upTo: index)
                            appendUnicodeEscape(base[index + 2] == 0xA8 ? 0x2028 : 0x2029, into: &out)
                            index += 2
                            flushed = index + 1
                        }
                        index += 1
                    }
                    index += 1  // past the closing quote
                    if !sawProtoKey, index <= count {
                        let length = index - start
                        if length == protoKey.count
                            ? isProtoKey(bytes, from: start, end: index)
                            : hasEscape && length <= longestEscapedProtoKey
                                && isEscapedProtoKey(bytes, from: start, end: index)
                        {
                            sawProtoKey = true
                        }
                    }
                } else if byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                    let end = numberEnd(bytes, from: index)
                    if let quoted = quotedIfUnsafe(bytes, from: index, to: end) {
                        flush(upTo: index)
                        quoted.withUnsafeBufferPointer { out.append(contentsOf: $0) }
                        flushed = end
                    }
                    index = end
                } else {
                    index += 1
                }
            }
        }
        flush(upTo: count)
        return sawProtoKey
    }

    /// Whether the string token `bytes[start..<end]` is `"__proto__"` used as an object key.
    private static func isProtoKey(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Bool {
        for offset in 0..<protoKey.count where bytes[start + offset] != protoKey[offset] {
            return false
        }
        var next = end
        while next < bytes.count,
            bytes[next] == 0x20 || bytes[next] == 0x0A || bytes[next] == 0x0D || bytes[next] == 0x09
        {
            next += 1
        }
        return next < bytes.count && bytes[next] == UInt8(ascii: ":")
    }

    /// Whether the string token `bytes[start..<end]`, which has escapes, means `__proto__` once
    /// JSON unescapes it (`"\u005f_proto__"`, `"__pr\u006fto__"`, …) and is used as an object key.
    private static func isEscapedProtoKey(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Bool {
        var index = start + 1
        let last = end - 1  // the closing quote
        var matched = 0
        while index < last {
            var unit = UInt16(bytes[index])
            if bytes[index] == backslash {
                // `__proto__` has no character with a short escape (`\n`, `\"`, …): only `\uXXXX` can match.
                guard index + 5 < last, bytes[index + 1] == UInt8(ascii: "u") else { return false }
                unit = 0
                for offset in 2..<6 {
                    guard let digit = HexDigit.value(bytes[index + offset]) else { return false }
                    unit = unit << 4 | UInt16(digit)
                }
                index += 6
            } else {
                index += 1
            }
            guard matched < protoUnits.count, unit == protoUnits[matched] else { return false }
            matched += 1
        }
        guard matched == protoUnits.count else { return false }
        var next = end
        while next < bytes.count,
            bytes[next] == 0x20 || bytes[next] == 0x0A || bytes[next] == 0x0D || bytes[next] == 0x09
        {
            next += 1
        }
        return next < bytes.count && bytes[next] == UInt8(ascii: ":")
    }

    /// The index after the JSON number token that starts at `start`.
    private static func numberEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start
        while end < bytes.count {
            let b = bytes[end]
            let isNumberByte =
                (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-")
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: "+")
            guard isNumberByte else { break }
            end += 1
        }
        return end
    }

    /// The token `bytes[start..<end]` written as a JSON string when it is an integer outside
    /// ±(2^53−1), or `nil` when it can stay a number.
    private static func quotedIfUnsafe(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> [UInt8]? {
        let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let digitCount = token.count - (token.first == UInt8(ascii: "-") ? 1 : 0)
        guard digitCount >= 16 else { return nil }
        let isInteger = !token.contains {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "+")
        }
        guard isInteger, !isSafeInteger(token) else { return nil }
        return [quote] + Array(token) + [quote]
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

    /// Appends the JSON / JavaScript escape `\uXXXX` (lowercase hex) for one UTF-16 code unit.
    static func appendUnicodeEscape<Sink: EscapeSink>(_ unit: UInt16, into out: inout Sink) {
        out.append(backslash)
        out.append(UInt8(ascii: "u"))
        out.append(hexDigits[Int(unit >> 12 & 0xF)])
        out.append(hexDigits[Int(unit >> 8 & 0xF)])
        out.append(hexDigits[Int(unit >> 4 & 0xF)])
        out.append(hexDigits[Int(unit & 0xF)])
    }

    /// The character whose UTF-8 sequence starts at `index` (a byte ≥ 0x80) and the sequence's
    /// length; U+FFFD and a length of 1 for a byte that does not start a valid sequence.
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return ("\u{FFFD}", 1) }
        var value = UInt32(lead) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
        for offset in 1..<length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return ("\u{FFFD}", 1) }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return ("\u{FFFD}", 1) }
        return (scalar, length)
    }
}

// MARK: Where the escaping pass writes

/// Where ``JavaScriptEmbedding``'s escaping pass writes: a growing byte array, a counter (to size
/// an output exactly before writing it), or a buffer of that exact size.
protocol EscapeSink {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes` in order.
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: EscapeSink where Element == UInt8 {}

/// Counts the bytes written, keeps none.
struct EscapeCounter: EscapeSink {
    private(set) var count = 0

    mutating func append(_ byte: UInt8) { count += 1 }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) { count += bytes.count }
}

/// Writes into a buffer sized by an ``EscapeCounter`` run over the same input; never past its end
/// (a write that does not fit is dropped and ``overflowed`` set, which a caller treats as a bug).
struct EscapeBufferWriter: EscapeSink {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func append(_ byte: UInt8) {
        guard count < buffer.count else {
            overflowed = true
            return
        }
        buffer[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, let source = bytes.baseAddress, !bytes.isEmpty else { return }
        guard buffer.count - count >= bytes.count else {
            overflowed = true
            return
        }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }
}
