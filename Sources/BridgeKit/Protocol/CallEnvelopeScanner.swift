import Foundation

/// The common message in one strict pass: a page-to-native call whose envelope is plain.
///
/// Most bodies are `{"v":1,"kind":"call","id":"…","task":"…","options":…}` written by the shim's
/// `JSON.stringify`. For those, decoding the envelope with `JSONDecoder` costs as much as
/// decoding small options, so the router reads the envelope members itself and hands only the
/// `options` bytes to `JSONDecoder` (which validates them). Anything unusual makes the scan give
/// up (`nil`) and the router decodes the whole body the general way, which produces every error
/// exactly as before: escapes in a key or in `kind`/`id`/`task`, `callbackId`, any other member,
/// a duplicate member, `v` other than the token `1`, `kind` other than `"call"`, a control
/// character or invalid UTF-8 in a string, text after the object.
///
/// When it succeeds, ``depth`` and ``id`` equal what ``BodyScan`` reports for the same bytes.
struct CallEnvelopeScan {
    /// The call id, if the body has one.
    let id: String?
    /// The task name (non-empty).
    let task: String
    /// The byte range of the `options` value, or `nil` when the member is absent.
    let options: Range<Int>?
    /// The deepest nesting, counting the envelope object as 1 (as ``BodyScan/depth``).
    let depth: Int

    /// Scans `bytes`; `nil` when the body is not a plain call envelope.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        var reader = Reader(bytes: bytes)
        var seen: UInt8 = 0  // one bit per known member
        if Self.startsWithShimPrefix(bytes) {
            // What the shim always writes first: `v` and `kind` read in one comparison.
            reader.index = Self.shimPrefix.utf8CodeUnitCount
            seen = 1 | 2
        } else {
            guard reader.skipSpace() == UInt8(ascii: "{") else { return nil }
            reader.index += 1
        }
        var id: String?
        var task: String?
        var options: Range<Int>?
        var depth = 1
        while true {
            guard reader.skipSpace() == UInt8(ascii: "\""), let key = reader.plainString() else { return nil }
            guard reader.skipSpace() == UInt8(ascii: ":") else { return nil }
            reader.index += 1
            guard reader.skipSpace() != nil else { return nil }
            let member: UInt8
            switch Self.member(key) {
            case .v:
                member = 1
                guard reader.skipToken() == 1, bytes[reader.index - 1] == UInt8(ascii: "1") else { return nil }
            case .kind:
                member = 2
                guard let value = reader.plainString(), Self.equals(value, "call") else { return nil }
            case .id:
                member = 4
                guard let value = reader.plainString(), let text = Self.string(value) else { return nil }
                id = text
            case .task:
                member = 8
                guard let value = reader.plainString(), !value.isEmpty, let text = Self.string(value) else {
                    return nil
                }
                task = text
            case .options:
                member = 16
                let start = reader.index
                guard let nesting = reader.skipValue() else { return nil }
                options = start..<reader.index
                depth = 1 + nesting
            case nil:
                return nil
            }
            guard seen & member == 0 else { return nil }
            seen |= member
            switch reader.skipSpace() {
            case UInt8(ascii: ","):
                reader.index += 1
            case UInt8(ascii: "}"):
                reader.index += 1
                guard reader.skipSpace() == nil, let task else { return nil }
                self.id = id
                self.task = task
                self.options = options
                self.depth = depth
                return
            default:
                return nil
            }
        }
    }

    private enum Member { case v, kind, id, task, options }

    /// The string of a member's bytes; `nil` when they are not valid UTF-8 (the general path then
    /// reports the body). ASCII, the usual id and task name, skips the generic validation of
    /// `String(validating:as:)` (there is nothing to repair, so `String(decoding:as:)` is exact).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80 ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// The start of every call the shim sends (`JSON.stringify` of `{v: 1, kind: "call", …}`).
    ///
    /// The shim's `encodeCall` (js/webbridge.js) must keep writing the keys in the order `v`,
    /// `kind`, `id`, `task`, `options`: a body with this prefix skips two member reads. Another
    /// order is still read correctly, one member at a time. Pinned on both sides: js/test/call.test.js
    /// ("encodeCall key order") and `CallEnvelopeScanTests`.
    static let shimPrefix: StaticString = #"{"v":1,"kind":"call","#

    /// Whether `bytes` start with ``shimPrefix`` (and go on after it).
    static func startsWithShimPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > shimPrefix.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, shimPrefix.utf8Start, shimPrefix.utf8CodeUnitCount) == 0
    }

    private static func member(_ key: UnsafeBufferPointer<UInt8>) -> Member? {
        switch key.count {
        case 1: return key[0] == UInt8(ascii: "v") ? .v : nil
        case 2: return Self.equals(key, "id") ? .id : nil
        case 4: return Self.equals(key, "kind") ? .kind : Self.equals(key, "task") ? .task : nil
        case 7: return Self.equals(key, "options") ? .options : nil
        default: return nil
        }
    }

    /// Whether `bytes` are exactly the UTF-8 bytes of `text`.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, text.utf8Start, bytes.count) == 0
    }

    /// A cursor over the body.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// Skips JSON whitespace; returns the next byte, or `nil` at the end.
        mutating func skipSpace() -> UInt8? {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
                index += 1
            }
            return nil
        }

        /// Reads a string without escapes or control characters at the cursor (which is on its
        /// opening quote) and returns its content bytes; `nil` for anything else.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            if let base = bytes.baseAddress {
                end = Self.nextSpecial(base, from: start, count: bytes.count)
            }
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") {
                    index = end + 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<end])
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                end += 1
            }
            return nil
        }

        /// The index of the first `"`, `\\` or control character at or after `index`, or
        /// `count`; eight bytes at a time (the lowest flagged lane of each test is exact, see
        /// `JavaScriptEmbedding`), then byte by byte.
        @inline(__always)
        static func nextSpecial(_ base: UnsafePointer<UInt8>, from index: Int, count: Int) -> Int {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var index = index
            while count - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                var found = (quotes &- ones) & ~quotes
                found |= (backslashes &- ones) & ~backslashes
                found |= (word &- ones &* 0x20) & ~word  // bytes below 0x20
                found &= highs
                if found != 0 { return index + found.trailingZeroBitCount / 8 }
                index += 8
            }
            while index < count, base[index] != 0x22, base[index] != 0x5C, base[index] >= 0x20 {
                index += 1
            }
            return index
        }

        /// Skips a scalar token (number, `true`, `false`, `null`); returns its length.
        mutating func skipToken() -> Int {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
                {
                    break
                }
                index += 1
            }
            return index - start
        }

        /// Skips one value without validating strings, arrays and objects (the options are
        /// validated where they are decoded): strings with their escapes, and arrays and objects
        /// by counting brackets outside strings, as ``BodyScan`` counts them; a number or literal
        /// must be one (issue 20, item 10: the scan must see the envelope's members where
        /// ``BodyScan`` does).
        /// - Returns: the deepest bracket nesting inside the value, or `nil` when it does not end.
        mutating func skipValue() -> Int? {
            guard index < bytes.count else { return nil }
            let first = bytes[index]
            if first == UInt8(ascii: "\"") {
                return skipString() ? 0 : nil
            }
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
                // A number or literal, checked now (it is short): anything else here (a stray
                // byte, a `{` inside a "token") would make the scan read the envelope where
                // ``BodyScan`` does not, and answer a body under an id BodyScan never names.
                let start = index
                guard skipToken() > 0, let base = bytes.baseAddress,
                    JSONValidator.isValid(UnsafeBufferPointer(start: base + start, count: index - start), maxDepth: 0)
                else { return nil }
                return 0
            }
            var level = 0
            var deepest = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    guard skipString() else { return nil }
                    continue
                }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    level += 1
                    deepest = max(deepest, level)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    level -= 1
                    if level == 0 {
                        index += 1
                        return deepest
                    }
                }
                index += 1
            }
            return nil
        }

        /// Skips a string at the cursor, escapes included; `false` when it does not end.
        /// Finds each candidate closing quote with `memchr` and checks it is not escaped.
        mutating func skipString() -> Bool {
            guard let base = bytes.baseAddress else { return false }
            var from = index + 1
            while from < bytes.count {
                guard let found = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) else {
                    return false
                }
                let quote = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                // The quote is escaped when an odd number of backslashes precede it.
                var backslashes = 0
                while quote - backslashes - 1 > index, base[quote - backslashes - 1] == UInt8(ascii: "\\") {
                    backslashes += 1
                }
                if backslashes % 2 == 0 {
                    index = quote + 1
                    return true
                }
                from = quote + 1
            }
            return false
        }
    }
}
