#if WebKitGTK
import Foundation

extension RelayEnvelope {
    /// Reads the envelope exactly as the relay's `JSON.stringify` writes it,
    /// `{"origin":"…","mainFrame":true|false,"body":"…"}`, without `JSONDecoder`: the body (the
    /// page's whole message, possibly megabytes) is unescaped in one pass that copies the runs
    /// between escapes in bulk. Returns `nil` for any other shape, an escape in the origin, or a
    /// `\u` escape of a surrogate; ``parse(_:)`` then decodes with `JSONDecoder` as before.
    ///
    /// The relay runs in an isolated world, so the shape is the relay's, never the page's; the
    /// page only controls the body's characters, which `JSON.stringify` escapes.
    static func fastParse(_ bytes: UnsafeBufferPointer<UInt8>) -> RelayEnvelope? {
        var reader = EscapedTextReader(bytes: bytes)
        guard reader.expect(#"{"origin":""#), let origin = reader.plainString(),
              reader.expect(#","mainFrame":"#) else { return nil }
        let mainFrame: Bool
        if reader.expect("true") {
            mainFrame = true
        } else if reader.expect("false") {
            mainFrame = false
        } else {
            return nil
        }
        guard reader.expect(#","body":""#), let body = reader.unescapedString(), reader.expect("}"), reader.atEnd else {
            return nil
        }
        return RelayEnvelope(origin: origin, mainFrame: mainFrame, body: body)
    }
}

/// A cursor over JSON text written by `JSON.stringify`.
private struct EscapedTextReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool { index == bytes.count }

    /// Consumes `literal` if the text continues with exactly it.
    mutating func expect(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard let base = bytes.baseAddress, bytes.count - index >= count,
              memcmp(base + index, literal.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// The rest of a string without escapes (the opening quote already consumed), and its
    /// closing quote; `nil` when it has an escape or does not end.
    mutating func plainString() -> String? {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") { return nil }
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            index += 1
        }
        return nil
    }

    /// The rest of a string (the opening quote already consumed) with its escapes resolved, and
    /// its closing quote; `nil` when it does not end or has a `\u` escape of a surrogate or an
    /// unknown escape. Unescaping only shrinks the text, so the result is written straight into
    /// the new string's storage.
    mutating func unescapedString() -> String? {
        guard let base = bytes.baseAddress else { return nil }
        let start = index
        var closing: Int?
        var failed = false
        let text = String(unsafeUninitializedCapacity: bytes.count - start) { out in
            guard let outBase = out.baseAddress else { return 0 }
            var written = 0
            var from = start
            while from < bytes.count {
                guard let quoteFound = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) else { break }
                let quote = UnsafeRawPointer(quoteFound).assumingMemoryBound(to: UInt8.self) - base
                let escape = memchr(base + from, Int32(UInt8(ascii: "\\")), quote - from)
                    .map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) - base } ?? quote
                (outBase + written).initialize(from: base + from, count: escape - from)
                written += escape - from
                if escape == quote {
                    closing = quote
                    return written
                }
                guard escape + 1 < bytes.count, let (scalar, length) = Self.escapedScalar(base, at: escape, count: bytes.count) else {
                    failed = true
                    return 0
                }
                for unit in scalar.utf8 {
                    outBase[written] = unit
                    written += 1
                }
                from = escape + length
            }
            failed = true
            return 0
        }
        guard !failed, let closing else { return nil }
        index = closing + 1
        return text
    }

    /// The character of the escape at `at` (a backslash) and the escape's length in bytes.
    private static func escapedScalar(_ base: UnsafePointer<UInt8>, at: Int, count: Int) -> (Unicode.Scalar, Int)? {
        switch base[at + 1] {
        case UInt8(ascii: "\""): return ("\"", 2)
        case UInt8(ascii: "\\"): return ("\\", 2)
        case UInt8(ascii: "/"): return ("/", 2)
        case UInt8(ascii: "b"): return ("\u{08}", 2)
        case UInt8(ascii: "f"): return ("\u{0C}", 2)
        case UInt8(ascii: "n"): return ("\n", 2)
        case UInt8(ascii: "r"): return ("\r", 2)
        case UInt8(ascii: "t"): return ("\t", 2)
        case UInt8(ascii: "u"):
            guard at + 6 <= count else { return nil }
            var value: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = hexValue(base[at + offset]) else { return nil }
                value = value << 4 | digit
            }
            // Surrogates (pairs or lone ones) are left to JSONDecoder.
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, 6)
        default:
            return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
#endif
