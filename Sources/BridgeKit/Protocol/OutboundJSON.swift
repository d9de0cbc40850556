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
}
