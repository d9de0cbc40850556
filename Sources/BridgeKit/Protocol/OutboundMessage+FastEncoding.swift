import Foundation

extension OutboundMessage {
    /// The JSON text of the message, as ``BridgeJSON/encode(_:)`` writes it, in pieces.
    ///
    /// A successful reply (the common case) is written without a second encoding pass over the
    /// envelope: the result is encoded alone, and the fixed members are written around it in
    /// sorted-key order (`data`, `id`, `kind`, `ok`, `v`), which joins to the same bytes as
    /// encoding the whole message. A ``RawJSON`` result is used as it is (it was checked when it
    /// was made), not encoded again. When the id needs escaping, or the result cannot be encoded
    /// at the top level, the whole message is encoded the general way (and any error is its).
    /// - Throws: `EncodingError` when the message cannot be encoded (for example `Double.nan`).
    func encodedParts() throws -> OutboundJSON {
        guard case .reply(let id, .success(let data)) = self, let quotedID = Self.plainJSONString(id),
            let result = (data as? RawJSON)?.data ?? (try? BridgeJSON.encode(data))
        else {
            return OutboundJSON(try BridgeJSON.encode(self))
        }
        var tail = Data(capacity: quotedID.count + 40)
        tail.append(contentsOf: Self.tailStart)
        tail.append(contentsOf: quotedID)
        tail.append(contentsOf: Self.tailEnd)
        return OutboundJSON(parts: [Self.head, result, tail])
    }

    private static let head = Data(#"{"data":"#.utf8)
    private static let tailStart: [UInt8] = Array(#","id":"#.utf8)
    private static let tailEnd: [UInt8] = Array(#","kind":"reply","ok":true,"v":1}"#.utf8)

    /// `text` as a JSON string literal when no character in it needs an escape (printable
    /// ASCII other than `"` and `\`); `nil` otherwise.
    static func plainJSONString(_ text: String) -> [UInt8]? {
        var quoted = [UInt8]()
        quoted.reserveCapacity(text.utf8.count + 2)
        quoted.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else {
                return nil
            }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }
}
