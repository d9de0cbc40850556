import Foundation

extension PageScript {
    /// Builds the script of a successful reply, `{"data":<result>,"id":<id>,"kind":"reply","ok":true,"v":1}`
    /// handed to ``PageFunction/receive``: the same text as encoding
    /// ``OutboundMessage/reply(id:result:)`` with ``BridgeJSON`` and building the script from it
    /// (sorted keys; the result escaped by ``JavaScriptEmbedding``), without the message, its
    /// pieces or a second copy of the result.
    ///
    /// The script is written straight into the string's own storage
    /// (``successReplyInPlace(id:result:asciiOnly:)``: one pass counts the escaped result, a second writes
    /// it into a string of exactly that length), so the result exists twice at most (its JSON and
    /// the script), never three times (an intermediate buffer). A result with a `"__proto__"` key
    /// (embedded through `JSON.parse`, rare) is built in a growing buffer instead
    /// (``successReplyInBuffer(id:result:asciiOnly:)``). Any thread; the time is linear in the result's length.
    ///
    /// - Parameters:
    ///   - id: the call id.
    ///   - result: the result's JSON text, as ``BridgeJSON`` wrote it or as ``RawJSON`` checked it.
    ///   - limit: the largest reply message allowed, in bytes of UTF-8
    ///     (``BridgeLimits/maxPayloadBytes``).
    /// - Returns: the script and the length of the reply message in bytes; `nil` when the id
    ///   needs an escape in JSON (the general encoder writes it) or the message is over `limit`
    ///   (the caller replies `payload_too_large`).
    static func successReply(id: String, result: Data, limit: Int) -> (script: String, messageBytes: Int)? {
        let idBytes = id.utf8.count
        let messageBytes = replyHead.count + result.count + replyIDStart.count + idBytes + 1 + replyTail.count
        guard messageBytes <= limit, isPlainID(id) else { return nil }
        // The same choice as `build(calling:jsonParts:)` makes for this message (the rest of it is ASCII).
        let asciiOnly = JavaScriptEmbedding.prefersASCII(
            messageBytes: messageBytes, nonASCIIIn: CollectionOfOne(result))
        let script =
            successReplyInPlace(id: id, result: result, asciiOnly: asciiOnly)
            ?? successReplyInBuffer(id: id, result: result, asciiOnly: asciiOnly)
        return (script, messageBytes)
    }

    /// ``successReply(id:result:limit:)`` written straight into the string's storage (for a result
    /// over ``singlePassLimit`` bytes: count, then write), or `nil` when the result has a `"__proto__"` key, or when the two passes disagree
    /// or the text is not valid UTF-8 (neither happens for JSON from `JSONEncoder` or `RawJSON`;
    /// the caller then builds it in a buffer rather than send a damaged reply). The id must be
    /// plain (``isPlainIDByte(_:)``). `asciiOnly`: write non-ASCII characters as `\u` escapes
    /// (the choice of ``successReply(id:result:limit:)``).
    static func successReplyInPlace(id: String, result: Data, asciiOnly: Bool = false) -> String? {
        let fixed = replyStart.count + replyIDStart.count + id.utf8.count + 1 + replyTail.count + ending.count
        let counted = result.count > singlePassLimit
        let length: Int
        if !counted {
            // Small: no counting pass; room for the longest escaping (6 bytes for each byte, `<`
            // as `\u003c`), which the string gives back when it is freed moments later.
            length = fixed + result.count * 6
        } else {
            var counter = EscapeCounter()
            let sawProtoKey = result.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendExpressionUnlessProtoKey(
                    fromJSON: raw.bindMemory(to: UInt8.self), to: &counter, asciiOnly: asciiOnly)
            }
            guard !sawProtoKey else { return nil }
            length = fixed + counter.count
        }
        var written = -1
        let script = String(unsafeUninitializedCapacity: length) { buffer in
            var writer = EscapeBufferWriter(buffer)
            replyStart.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            let sawProtoKey = result.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendExpressionUnlessProtoKey(
                    fromJSON: raw.bindMemory(to: UInt8.self), to: &writer, asciiOnly: asciiOnly)
            }
            guard !sawProtoKey else { return 0 }
            replyIDStart.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            var id = id
            id.withUTF8 { writer.append(contentsOf: $0) }
            writer.append(UInt8(ascii: "\""))
            replyTail.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            ending.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            if !writer.overflowed { written = writer.count }
            return writer.count
        }
        // The string repairs invalid UTF-8, which changes its length.
        guard written >= 0, !counted || written == length, script.utf8.count == written else { return nil }
        return script
    }

    /// Results up to this many bytes are written in one pass into a string with room for any
    /// escaping (at most 6 times their length); longer ones are counted first, so that the
    /// string is exactly as long as the script (memory: the result then exists twice at most).
    static let singlePassLimit = 4096

    /// ``successReply(id:result:limit:)`` built in a growing byte array and then copied into a
    /// string (the result's bytes three times at once); for what ``successReplyInPlace(id:result:asciiOnly:)``
    /// leaves. The id must be plain (``isPlainIDByte(_:)``); `asciiOnly` as there.
    static func successReplyInBuffer(id: String, result: Data, asciiOnly: Bool = false) -> String {
        var script = [UInt8]()
        // Room for the escapes of a result with many `<` (6 bytes each) without growing.
        script.reserveCapacity(
            replyStart.count + result.count + result.count / 8 + id.utf8.count + replyTail.count + 32)
        script.append(contentsOf: replyStart)
        result.withUnsafeBytes { raw in
            JavaScriptEmbedding.appendExpression(
                fromJSON: raw.bindMemory(to: UInt8.self), to: &script, asciiOnly: asciiOnly)
        }
        script.append(contentsOf: replyIDStart)
        script.append(contentsOf: id.utf8)
        script.append(UInt8(ascii: "\""))
        script.append(contentsOf: replyTail)
        script.append(contentsOf: ending)
        return String(decoding: script, as: UTF8.self)
    }

    /// Whether every byte of `id` is plain (``isPlainIDByte(_:)``). Reads the string's own UTF-8
    /// storage when it has one (an id the envelope scan made always does), else its UTF-8 view.
    static func isPlainID(_ id: String) -> Bool {
        id.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlainIDByte) } ?? id.utf8.allSatisfy(isPlainIDByte)
    }

    /// Whether an id byte needs no escape, in JSON and in a script: printable ASCII other than
    /// `"`, `\` and `<`.
    static func isPlainIDByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
            && byte != UInt8(ascii: "<")
    }

    private static let replyHead: [UInt8] = Array(#"{"data":"#.utf8)
    /// `<receive function>({"data":`.
    private static let replyStart: [UInt8] = Array(PageFunction.receive.source.utf8) + [UInt8(ascii: "(")] + replyHead
    private static let replyIDStart: [UInt8] = Array(#","id":""#.utf8)
    private static let replyTail: [UInt8] = Array(#","kind":"reply","ok":true,"v":1}"#.utf8)
}
