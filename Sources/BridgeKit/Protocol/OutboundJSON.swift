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
        // Two passes over the pieces: one counts the output, one writes it straight into the
        // string's storage, so the reply exists once (no intermediate array, no second copy).
        var counter = EscapeCounter()
        for part in parts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &counter)
            }
        }
        var overflowed = false
        let text = String(unsafeUninitializedCapacity: counter.count) { buffer in
            var writer = EscapeBufferWriter(buffer)
            for part in parts {
                part.withUnsafeBytes { raw in
                    JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &writer)
                }
            }
            overflowed = writer.overflowed
            return writer.count
        }
        // Both passes write the same bytes; a mismatch would be a bug in the escaper. Fall back
        // to a growing buffer rather than send a truncated reply.
        guard overflowed || text.utf8.count != counter.count else { return text }
        var out = [UInt8]()
        for part in parts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
