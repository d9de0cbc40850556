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
