public import Foundation

/// The JSON coders BridgeKit uses for every message, so both directions agree.
///
/// Encoding: keys sorted (stable output for tests and logs), slashes not escaped (the script
/// builder escapes `<` itself), non-finite numbers rejected with an `EncodingError`.
/// Decoding: Foundation's strict `JSONDecoder` (a JSON `1` is never a `Bool`, a `true` is never
/// an `Int`; integers up to `UInt64.max` decode exactly, never through `Double`).
public enum BridgeJSON {
    /// Returns a new encoder with BridgeKit's settings, for callers that want to change one.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Returns a new decoder with BridgeKit's settings.
    public static func makeDecoder() -> JSONDecoder {
        JSONDecoder()
    }

    /// One encoder and one decoder for every message: Foundation's coders are `Sendable` and
    /// safe to use from several threads at once (their settings are read under a lock)
    /// (docs/performance.md, "BridgeJSON.sharedEncoder").
    @usableFromInline static let sharedEncoder = makeEncoder()
    @usableFromInline static let sharedDecoder = makeDecoder()

    /// Encodes `value` as UTF-8 JSON text. Top-level scalars are allowed. Any thread.
    /// - Throws: `EncodingError.invalidValue` for values JSON cannot hold (NaN, ±infinity).
    public static func encode(_ value: some Encodable) throws -> Data {
        try sharedEncoder.encode(value)
    }

    /// Decodes `type` from UTF-8 JSON text.
    /// - Throws: `DecodingError` naming the coding path of the first mismatch.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try sharedDecoder.decode(type, from: data)
    }
}
