import Foundation

// Compiled into the fuzz target too (scripts/fuzz), where BridgeKit is not a module of its own.
#if !ROUTER_FUZZ
import BridgeKit
#endif

/// Reads a message the router delivered (a reply-handler text, or the argument of a page script)
/// the way a test page needs it: decoded, or, when it cannot be, a failed reply that says why, so
/// that a waiting test fails at once instead of at its time limit.
enum DeliveredMessage {
    /// The error code of the failed reply that stands for a delivered reply the test page could
    /// not decode (``decode(_:)``).
    static let undecodableErrorCode = "test_undecodable_reply"

    /// Decodes the JSON text of a delivered message.
    ///
    /// A page's `JSON.parse` reads an escaped lone surrogate (`"\ud800"`, which a raw JSON result
    /// may carry) into its string; Foundation's decoder refuses it. Such escapes are read as
    /// U+FFFD here. A reply that still does not decode becomes a failed reply of its id with the
    /// code ``undecodableErrorCode``.
    /// - Returns: the message; `nil` when `text` is no JSON and carries no reply id.
    static func decode(_ text: String) -> JSONValue? {
        let data = Data(text.utf8)
        if let message = try? BridgeJSON.decode(JSONValue.self, from: data) { return message }
        if let repaired = replacingLoneSurrogates(in: Array(text.utf8)),
            let message = try? BridgeJSON.decode(JSONValue.self, from: Data(repaired))
        {
            return message
        }
        guard let id = replyID(in: text) else { return nil }
        let message = "InMemoryPage could not decode the reply to \"\(id)\": \(text.prefix(200))"
        return [
            "v": 1, "kind": "reply", "id": .string(id), "ok": false,
            "error": ["code": .string(undecodableErrorCode), "message": .string(message)],
        ]
    }

    /// `json` with every escaped lone surrogate replaced by `\ufffd`; `nil` when it has none.
    static func replacingLoneSurrogates(in json: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var changed = false
        var index = 0
        while index < json.count {
            guard json[index] == UInt8(ascii: "\\"), index + 1 < json.count else {
                out.append(json[index])
                index += 1
                continue
            }
            guard json[index + 1] == UInt8(ascii: "u"), let unit = codeUnit(in: json, at: index) else {
                out.append(contentsOf: json[index...min(index + 1, json.count - 1)])
                index += 2
                continue
            }
            switch unit {
            case 0xD800...0xDBFF:
                if let low = codeUnit(in: json, at: index + 6), (0xDC00...0xDFFF).contains(low) {
                    out.append(contentsOf: json[index..<index + 12])
                    index += 12
                    continue
                }
            case 0xDC00...0xDFFF:
                break
            default:
                out.append(contentsOf: json[index..<index + 6])
                index += 6
                continue
            }
            out.append(contentsOf: Array(#"\ufffd"#.utf8))
            changed = true
            index += 6
        }
        return changed ? out : nil
    }

    /// The UTF-16 code unit of the `\uXXXX` escape at `index`, if there is one.
    private static func codeUnit(in json: [UInt8], at index: Int) -> UInt16? {
        guard index + 6 <= json.count, json[index] == UInt8(ascii: "\\"), json[index + 1] == UInt8(ascii: "u"),
            let text = String(bytes: json[index + 2..<index + 6], encoding: .ascii)
        else { return nil }
        return UInt16(text, radix: 16)
    }

    /// The id of a reply envelope, read without decoding it (the router writes ids as printable
    /// ASCII without `"`, `\` or `<`); `nil` when `text` is no reply.
    private static func replyID(in text: String) -> String? {
        guard text.contains(#""kind":"reply""#), let start = text.range(of: #""id":""#) else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
