public import Foundation

/// JSON text that a task takes or returns as it is, without decoding it into Swift values.
///
/// For tasks that only pass a payload on (store a draft, forward it to a server, hand it to
/// another web view), decoding it into typed values and encoding it again is most of the cost
/// of a call: 1–2 ms for 10 KB of records with Foundation's coders on a 2-core Linux machine
/// (docs/performance.md). Declare `RawJSON` as the task's `Options` or `Result` and the router
/// skips both steps:
///
/// ```swift
/// struct SaveDraft: BridgeTask {
///     let name = "SaveDraft"
///     let store: DraftStore
///     func run(_ options: RawJSON, context: CallContext) async throws -> NoResult {
///         try await store.save(options.data)   // the page's JSON text, byte for byte
///         return NoResult()
///     }
/// }
/// ```
///
/// - As `Options`: the router checks that the `options` member is one JSON value (RFC 8259,
///   valid UTF-8, within ``BridgeLimits/maxDepth``) and hands over its bytes; absent options
///   are `null`. Text that is not JSON settles the call with `invalid_message`, as for any task.
/// - As `Result` (or a progress value): the bytes become the reply's `data` as they are, after
///   the same check, which `RawJSON(validating:)` has already made; the script builder still
///   escapes them for the page (U+2028, U+2029, `<`), so they stay data, never code.
/// - Inside other `Codable` types it works too, through ``JSONValue`` (slower, and numbers
///   outside `Int64` and `Double` fail), so a `RawJSON` member is never lost.
///
/// Two values are equal when their bytes are: `{"a":1}` and `{ "a": 1 }` differ.
public struct RawJSON: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The UTF-8 JSON text of exactly one value.
    public let data: Data

    /// Wraps `data` after checking that it is one JSON value (RFC 8259) in valid UTF-8. An object
    /// may name a member twice here (the page's `JSON.parse` keeps the last); a page's options
    /// that do are refused before any task sees them.
    /// - Parameters:
    ///   - data: the JSON text.
    ///   - maxDepth: the deepest nesting of arrays and objects allowed; default 64, as
    ///     ``BridgeLimits/maxDepth``.
    /// - Throws: ``BridgeError`` `invalid_result` when `data` is not one JSON value.
    public init(validating data: Data, maxDepth: Int = 64) throws(BridgeError) {
        let valid = data.withUnsafeBytes { raw in
            JSONValidator.isValid(raw.bindMemory(to: UInt8.self), maxDepth: maxDepth, allowsRepeatedNames: true)
        }
        guard valid else {
            throw BridgeError.invalidResult("The text is not one JSON value (RFC 8259) of at most \(maxDepth) levels.")
        }
        self.data = data
    }

    /// Wraps the UTF-8 of `text` after checking it, as the `Data` initializer does.
    /// - Throws: ``BridgeError`` `invalid_result` when `text` is not one JSON value.
    public init(validating text: String, maxDepth: Int = 64) throws(BridgeError) {
        try self.init(validating: Data(text.utf8), maxDepth: maxDepth)
    }

    /// The JSON text of `value`, as BridgeKit encodes every message (``BridgeJSON``).
    /// - Throws: `EncodingError` when `value` cannot be encoded (for example `Double.nan`).
    public init(encoding value: some Encodable) throws {
        data = try BridgeJSON.encode(value)
    }

    /// Text already checked by the caller (the router's fast path).
    @usableFromInline
    init(checked data: Data) {
        self.data = data
    }

    /// JSON `null`.
    public static let null = RawJSON(checked: Data("null".utf8))

    /// Decodes the text into `type` with BridgeKit's decoder, for a task that wants to look
    /// inside after all.
    /// - Throws: `DecodingError` naming the coding path of the first mismatch.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try BridgeJSON.decode(type, from: data)
    }

    /// The JSON text.
    public var description: String { String(decoding: data, as: UTF8.self) }

    /// Decodes any JSON value through ``JSONValue`` and keeps its encoding.
    public init(from decoder: any Decoder) throws {
        data = try BridgeJSON.encode(JSONValue(from: decoder))
    }

    /// Encodes the value through ``JSONValue``.
    /// - Throws: `DecodingError` when the text holds a number that neither `Int64` nor
    ///   `Double` can hold.
    public func encode(to encoder: any Encoder) throws {
        try decode(JSONValue.self).encode(to: encoder)
    }
}
