/// A strict check that bytes are exactly one JSON value (RFC 8259), without building anything.
///
/// ``RawJSON`` keeps a page's JSON text as it came and sends a task's JSON text as it is, so
/// the text must be proven to be JSON before it is ever embedded in a script: this check is
/// what keeps "replies are data, never code" true for text that no encoder wrote.
///
/// Accepted: the RFC 8259 grammar (section 2 whitespace, literals `true` `false` `null`,
/// section 6 numbers, section 7 strings with their escapes, objects and arrays), surrounded by
/// optional whitespace, in valid UTF-8 (RFC 3629: no overlong forms, no surrogate code points,
/// nothing above U+10FFFF). Rejected: everything else, including control characters inside
/// strings, a byte order mark, `NaN`, leading zeros, trailing commas and a second value. Escaped
/// lone surrogates (`"\ud800"`) are accepted, as `JSON.parse` accepts them.
///
/// Also rejected: an object with two members of the same name, however they are escaped
/// (`"a"` and `"\u0061"` are one name). RFC 8259 section 4 leaves such objects to each parser,
/// and parsers disagree (`JSON.parse` keeps the last member; the envelope scan and Foundation on
/// Linux keep the first), so a body that means two things to two readers is no body. Text that
/// only the page reads (a task's ``RawJSON``) may repeat names: `JSON.parse` is its one reader.
@usableFromInline
package enum JSONValidator {
    /// Whether `bytes` are one JSON value, nested no deeper than `maxDepth` arrays and objects,
    /// with no object that names a member twice unless `allowsRepeatedNames`.
    @usableFromInline
    package static func isValid(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsRepeatedNames: Bool = false
    ) -> Bool {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth, allowsRepeatedNames: allowsRepeatedNames)
        guard reader.value(depth: 0) else { return false }
        reader.skipSpace()
        return reader.index == bytes.count
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0
        /// The names of the members of the objects being read, innermost object last.
        var names = MemberNames()

        let allowsRepeatedNames: Bool

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsRepeatedNames: Bool) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.allowsRepeatedNames = allowsRepeatedNames
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                index += 1
            }
        }

        /// One value after optional whitespace. `depth` is the nesting around it.
        mutating func value(depth: Int) -> Bool {
            skipSpace()
            switch current {
            case UInt8(ascii: "{"): return container(depth: depth + 1, closing: UInt8(ascii: "}"), keyed: true)
            case UInt8(ascii: "["): return container(depth: depth + 1, closing: UInt8(ascii: "]"), keyed: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case .some: return number()
            case nil: return false
            }
        }

        /// An object (`keyed`) or an array; the cursor is on its opening bracket.
        mutating func container(depth: Int, closing: UInt8, keyed: Bool) -> Bool {
            guard depth <= maxDepth else { return false }
            index += 1
            skipSpace()
            if current == closing {
                index += 1
                return true
            }
            let firstName = names.count
            let checksNames = keyed && !allowsRepeatedNames
            defer { if checksNames { names.removeFrom(firstName) } }
            while true {
                if keyed {
                    skipSpace()
                    let nameStart = index
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    guard
                        !checksNames
                            || names.insert(bytes: bytes, from: nameStart + 1, to: index - 1, objectStart: firstName)
                    else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                }
                guard value(depth: depth) else { return false }
                skipSpace()
                switch current {
                case UInt8(ascii: ","):
                    index += 1
                case closing:
                    index += 1
                    return true
                default:
                    return false
                }
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                return false
            }
            index += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 section 6).
        mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() else { return false }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return false }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return false }
            }
            return true
        }

        /// One or more ASCII digits.
        mutating func digits() -> Bool {
            let start = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                index += 1
            }
            return index > start
        }

        /// A string; the cursor is on its opening quote (RFC 8259 section 7).
        mutating func string() -> Bool {
            index += 1
            while true {
                skipPlainStringBytes()
                guard let byte = current else { return false }
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"):
                    guard escape() else { return false }
                case 0..<0x20:
                    return false
                case 0x20..<0x80:
                    index += 1
                default:
                    guard scalar() else { return false }
                }
            }
        }

        /// Moves the cursor past the string bytes that need no check (ASCII from 0x20, except `"`
        /// and `\`), eight at a time (``ByteLanes``); the bytes left (the last seven at most)
        /// go through ``string()``'s own loop.
        @inline(__always)
        mutating func skipPlainStringBytes() {
            guard let base = bytes.baseAddress else { return }
            while bytes.count - index >= 8 {
                let word = ByteLanes.load(base, at: index)
                let stops =
                    ByteLanes.equal(word, UInt8(ascii: "\"")) | ByteLanes.equal(word, UInt8(ascii: "\\"))
                    | ByteLanes.below(word, 0x20) | ByteLanes.nonASCII(word)
                if stops != 0 {
                    index += ByteLanes.firstLane(stops)
                    return
                }
                index += 8
            }
        }

        /// `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` or `\uXXXX`; the cursor is on the backslash.
        mutating func escape() -> Bool {
            guard index + 1 < bytes.count else { return false }
            switch bytes[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
                return true
            case UInt8(ascii: "u"):
                guard index + 6 <= bytes.count else { return false }
                for offset in 2..<6 where !Self.isHexDigit(bytes[index + offset]) {
                    return false
                }
                index += 6
                return true
            default:
                return false
            }
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
        }

        /// One multi-byte UTF-8 sequence, well formed (RFC 3629 section 4).
        mutating func scalar() -> Bool {
            let lead = bytes[index]
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard index + length <= bytes.count else { return false }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
            return true
        }
    }
}
