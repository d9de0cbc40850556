public import Foundation

/// The JSON coders BridgeKit uses for every message, so both directions agree.
///
/// Encoding: keys sorted (stable output for tests and logs), slashes not escaped (the script
/// builder escapes `<` itself), non-finite numbers rejected with an `EncodingError`.
/// Decoding: Foundation's strict `JSONDecoder` (a JSON `1` is never a `Bool`, a `true` is never
/// an `Int`; integers up to `UInt64.max` decode exactly, never through `Double`).
///
/// `Data` is written as a base64 string, as `JSONEncoder` writes it, except in a call's result or
/// progress, or an event, when the router's byte transport is attached: there it is a binary
/// value the page gets as a `Uint8Array` (`BinaryTransfers`). A `Data` field of a task's options reads base64
/// text; a binary value the page passes (an `ArrayBuffer`, typed array or `Blob`) needs a
/// ``BridgeBinary`` field, and the page is told so.
///
/// Dates are written as JavaScript writes them (`Date.prototype.toJSON`, what `JSON.stringify`
/// does with a `Date`): an ISO 8601 string with milliseconds in UTC, `"2023-11-14T22:13:20.250Z"`,
/// which `new Date(text)` reads. A date from the page may be such a string (with or without
/// fractional seconds, in any zone offset) or a number of milliseconds since 1970 (`Date.now()`,
/// `getTime()`); anything else fails to decode (`invalid_options` at its path). Foundation's
/// default, seconds since 2001, would reach a page as a date in January 1970.
public enum BridgeJSON {
    /// Returns a new encoder with BridgeKit's settings, for callers that want to change one.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(javaScriptDate))
        }
        encoder.dataEncodingStrategy = .custom { data, encoder in
            // In a call's result or progress, or an event, with a byte transport attached: a download.
            if let writer = BinaryOutlet.Writer.current, let binary = try writer.placeholder(for: data) {
                try binary.encode(to: encoder)
                return
            }
            var container = encoder.singleValueContainer()
            try container.encode(data.base64EncodedString())
        }
        return encoder
    }

    /// Returns a new decoder with BridgeKit's settings.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let milliseconds = try? container.decode(Double.self) {
                return Date(timeIntervalSince1970: milliseconds / 1000)
            }
            let text = try container.decode(String.self)
            guard let date = try? javaScriptDate.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "Expected a date: an ISO 8601 string such as 2023-11-14T22:13:20.250Z, "
                        + "or milliseconds since 1970.")
            }
            return date
        }
        decoder.dataDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            // A binary value from the page is a placeholder object, whose bytes come later: only a
            // `BridgeBinary` field can take it (DecodingErrorDescription names it).
            guard let text = try? container.decode(String.self) else {
                throw DecodingError.typeMismatch(
                    Data.self,
                    DecodingError.Context(
                        codingPath: decoder.codingPath, debugDescription: "Expected base64 text for Data."))
            }
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not base64 text.")
            }
            return data
        }
        return decoder
    }

    /// ISO 8601 with milliseconds in UTC (the style's default zone), as
    /// `Date.prototype.toISOString` writes it; parses the form without fractional seconds and
    /// with a zone offset too. (`Date.ISO8601FormatStyle`: iOS 15, macOS 12.)
    private static let javaScriptDate = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

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
