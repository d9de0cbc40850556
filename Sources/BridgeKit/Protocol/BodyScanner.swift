import Foundation

/// One cheap pass over a body before it is decoded: its nesting depth and the top-level `id`
/// (or `callbackId`), so that a body rejected for its size, depth or syntax can still be
/// answered with an error for the right call.
struct BodyScan {
    /// The deepest nesting seen, counting the top-level object as 1.
    var depth = 0
    /// The string value of the top-level `"id"` member, else of the `"callbackId"` member, if
    /// any: the member the decoder reads (``InboundEnvelope``), whichever comes first.
    var id: String?

    /// Scans `bytes`, which need not be valid JSON.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
        let topIsObject = index < bytes.count && bytes[index] == UInt8(ascii: "{")
        var level = 0
        var pendingKeyIsID = false
        var pendingKeyIsCallbackID = false
        var idIsFromCallbackID = false
        var expectingKey = false
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                level += 1
                depth = max(depth, level)
                expectingKey = true
                index += 1
            case UInt8(ascii: "["):
                level += 1
                depth = max(depth, level)
                expectingKey = false
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                index += 1
            case UInt8(ascii: ","):
                expectingKey = level == 1 && topIsObject
                index += 1
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                var escaped = false
                while end < count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if level == 1 {
                    if expectingKey {
                        let key = Self.idKey(bytes, start, min(end, count))
                        pendingKeyIsID = key == .id
                        pendingKeyIsCallbackID = key == .callbackID
                    } else if pendingKeyIsID || pendingKeyIsCallbackID, end < count,
                        id == nil || (pendingKeyIsID && idIsFromCallbackID)
                    {
                        id = Self.string(bytes, start, end, escaped: escaped)
                        idIsFromCallbackID = pendingKeyIsCallbackID
                        pendingKeyIsID = false
                        pendingKeyIsCallbackID = false
                    }
                }
                expectingKey = false
                index = end + 1
            case UInt8(ascii: ":"):
                expectingKey = false
                index += 1
            default:
                if level == 1, !expectingKey, byte > 0x20 {
                    pendingKeyIsID = false
                    pendingKeyIsCallbackID = false
                }
                index += 1
            }
            if level < 0 { break }
        }
    }

    private enum IDKey { case id, callbackID }

    private static func idKey(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> IDKey? {
        let length = end - start
        if length == 2 { return bytes[start] == UInt8(ascii: "i") && bytes[start + 1] == UInt8(ascii: "d") ? .id : nil }
        if length == 10 {
            let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            return key == "callbackId" ? .callbackID : nil
        }
        return nil
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, escaped: Bool) -> String?
    {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard escaped else { return String(validating: slice, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "\"")]) + Data(slice) + Data([UInt8(ascii: "\"")])
        return try? JSONDecoder().decode(String.self, from: quoted)
    }
}
