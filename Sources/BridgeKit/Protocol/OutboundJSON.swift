import Foundation

/// The JSON text of one native-to-page message, kept in the pieces it was produced in.
///
/// A successful reply is the task's result, encoded once, between a fixed head and tail (see
/// ``OutboundMessage/encodedParts()``); keeping the pieces lets the script builder escape each
/// into the script directly, without first joining them into one more copy of the payload.
/// Joined, the pieces are exactly the text `JSONEncoder` writes for the whole message.
struct OutboundJSON: Sendable {
    /// The pieces, in order; each one starts and ends outside any JSON string or number.
    let parts: [Data]

    /// A text in one piece.
    init(_ data: Data) {
        parts = [data]
    }

    /// A text in pieces (see ``parts``).
    init(parts: [Data]) {
        self.parts = parts
    }

    /// The length of the text in bytes of UTF-8.
    var count: Int {
        parts.reduce(0) { $0 + $1.count }
    }

    /// The text as a `String`, copied once from the pieces.
    var text: String {
        if parts.count == 1 { return String(decoding: parts[0], as: UTF8.self) }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { raw in
                    guard let base = buffer.baseAddress else { return }
                    UnsafeMutableRawBufferPointer(start: base + offset, count: raw.count).copyMemory(from: raw)
                }
                offset += part.count
            }
            return offset
        }
    }

    /// The text for a reply handed to the engine as a string (``ReplyHandler``), which the page
    /// reads with `JSON.parse`: the same JSON value as ``text``, with the script builder's escapes
    /// (integers outside ±(2^53−1) as strings of the same digits, field case R11; U+2028, U+2029
    /// and `<` as `\u` escapes) and every non-ASCII character written as a `\u` escape (a
    /// surrogate pair above U+FFFF).
    ///
    /// Pure ASCII because JavaScriptCore keeps a string that has only Latin-1 characters in one
    /// byte per character and converts it from UTF-8 with a plain copy, while a single character
    /// above U+00FF makes the whole string two bytes per character (twice the memory for a large
    /// reply, and a conversion pass).
    var replyText: String {
        var escaped = [UInt8]()
        escaped.reserveCapacity(count + 16)
        for part in parts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &escaped)
            }
        }
        guard escaped.contains(where: { $0 >= 0x80 }) else { return String(decoding: escaped, as: UTF8.self) }
        var out = [UInt8]()
        out.reserveCapacity(escaped.count + escaped.count / 8)
        escaped.withUnsafeBufferPointer { Self.appendEscapingNonASCII($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Copies valid UTF-8 JSON text, replacing each non-ASCII character by `\uXXXX` escapes.
    /// Non-ASCII bytes only occur inside JSON strings, where such an escape means the same.
    private static func appendEscapingNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var index = 0
        var flushed = 0
        while index < bytes.count {
            let lead = bytes[index]
            guard lead >= 0x80 else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[flushed..<index]))
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            var value = UInt32(lead) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
            for offset in 1..<length where index + offset < bytes.count {
                value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
            }
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            for unit in scalar.utf16 {
                JavaScriptEmbedding.appendUnicodeEscape(unit, into: &out)
            }
            index += length
            flushed = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[min(flushed, bytes.count)..<bytes.count]))
    }
}
