/// A binary value in a call's options, result, progress or event: an `ArrayBuffer`, typed array
/// or `Blob` on the page, bytes that travel outside the JSON message through the byte transport
/// (docs/protocol.md, "Binary values").
///
/// In the JSON message it is a placeholder, `{"$bridgeBinary": {"token": "…", "size": 12, "type": "image/png"}}`.
/// Declare a `BridgeBinary` field in a task's `Decodable` options where the page passes bytes, and
/// read them with ``BinaryTransfers/upload(of:context:)`` (a stream of chunks) or
/// ``BinaryTransfers/data(of:context:)``; put one made by ``BinaryTransfers/send(_:type:context:)``
/// into a result, progress or event to hand bytes to the page, which gets a `Uint8Array` there.
/// Plain `Data` in a result, progress or event becomes such a value by itself once the router
/// has ``BinaryTransfers`` (``BinaryTransfers/init(router:limits:)``; for an event, once the
/// document's notice told an origin the router's policy admits); `send` adds a MIME type, and
/// `send(chunks:size:type:context:)` streams.
///
/// Which message carries the token decides where it works: `send` with a running call's context
/// announces the token in that call's next progress or reply, so put the placeholder there; for
/// an event (``BridgeRouter/emit(_:data:)-(_,EncodableSendable)``) with a MIME type or a stream,
/// make the placeholder with a context of no call (`CallContext(callID: nil, taskName: "…",
/// source: .mainFrame(origin), pageGeneration: router.pageGeneration)`), whose `send` announces
/// the token with an event of its own before it returns. A placeholder of a call's context put
/// into an event reaches the page as the plain placeholder object.
///
/// The placeholder is found by type, never by its key alone: native reads it only where a task
/// declared a `BridgeBinary`, and the page turns a placeholder into bytes only when native
/// announced its token for the document, so a page's own object with a `"$bridgeBinary"` key
/// crosses both ways unchanged.
public struct BridgeBinary: Codable, Sendable, Hashable {
    /// The placeholder's only key.
    public static let placeholderKey = "$bridgeBinary"

    /// The one-time capability that names the bytes: 32 lower-case hexadecimal digits (128 random bits).
    public let token: String
    /// The number of bytes, when known (the page always says; a native stream may not).
    public let size: Int?
    /// The MIME type the page's `Blob` had, or native gave; `nil` when none.
    public let type: String?

    /// Creates a placeholder value. Tasks get theirs from decoding or from ``BinaryTransfers``.
    /// - Parameters:
    ///   - token: the transfer's token (`BinaryToken`'s shape).
    ///   - size: the byte count, when known.
    ///   - type: the MIME type, or `nil`.
    public init(token: String, size: Int?, type: String?) {
        self.token = token
        self.size = size
        self.type = type
    }

    private struct Outer: CodingKey {
        var stringValue: String { BridgeBinary.placeholderKey }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { guard stringValue == BridgeBinary.placeholderKey else { return nil } }
        init?(intValue: Int) { nil }
    }

    private enum Fields: String, CodingKey { case token, size, type }

    /// Decodes the placeholder.
    /// - Throws: `DecodingError` when the value is not a placeholder, its token is not 32 lower-case
    ///   hexadecimal digits, or its size is negative (the page gets `invalid_options` with the path).
    public init(from decoder: any Decoder) throws {
        let outer = try decoder.container(keyedBy: Outer.self)
        let fields = try outer.nestedContainer(keyedBy: Fields.self, forKey: Outer())
        let token = try fields.decode(String.self, forKey: .token)
        guard BinaryToken.isValid(token) else {
            throw DecodingError.dataCorruptedError(
                forKey: .token, in: fields, debugDescription: "Not a binary transfer token.")
        }
        let size = try fields.decodeIfPresent(Int.self, forKey: .size)
        if let size, size < 0 {
            throw DecodingError.dataCorruptedError(forKey: .size, in: fields, debugDescription: "Negative size.")
        }
        self.init(token: token, size: size, type: try fields.decodeIfPresent(String.self, forKey: .type))
    }

    /// Encodes the placeholder (`size` and `type` only when known).
    public func encode(to encoder: any Encoder) throws {
        var outer = encoder.container(keyedBy: Outer.self)
        var fields = outer.nestedContainer(keyedBy: Fields.self, forKey: Outer())
        try fields.encode(token, forKey: .token)
        try fields.encodeIfPresent(size, forKey: .size)
        try fields.encodeIfPresent(type, forKey: .type)
    }
}
