import BridgeKit
import Foundation

/// A reply, progress or event value of a mock file: JSON, in which an object
/// `{"$bridgeBinary": {"base64": "…"}}` or `{"$bridgeBinary": {"file": "photo.png"}}` stands for
/// bytes. The bytes reach the page as the app's `Data` would: a `Uint8Array`, through the byte
/// transport (docs/protocol.md, "Binary values").
indirect enum MockValue: Encodable, Sendable, Equatable {
    /// JSON with no bytes in it, written as it is.
    case json(JSONValue)
    /// Bytes, written as `Data`.
    case bytes(Data)
    /// An array with bytes somewhere in it.
    case array([MockValue])
    /// An object with bytes somewhere in it.
    case object([String: MockValue])

    /// The mock file's word for bytes (the protocol's placeholder key).
    static let bytesKey = BridgeBinary.placeholderKey

    /// Reads `value`, turning each bytes object into ``bytes(_:)``.
    /// - Parameter folder: where a bytes object's `file` is looked for (the mock file's folder).
    /// - Throws: a message naming what is wrong, for ``MockFile/LoadError``: a `$bridgeBinary`
    ///   object with other members, neither or both of `base64` and `file`, text that is not
    ///   base64, a file that cannot be read.
    static func read(_ value: JSONValue, folder: URL) throws(Problem) -> MockValue {
        switch value {
        case .array(let items):
            var values: [MockValue] = []
            for item in items { values.append(try read(item, folder: folder)) }
            return values.contains(where: \.hasBytes) ? .array(values) : .json(value)
        case .object(let members):
            if let spec = members[bytesKey] {
                guard members.count == 1 else {
                    throw Problem("an object with \"\(bytesKey)\" stands for bytes and has no other members")
                }
                return .bytes(try bytes(spec, folder: folder))
            }
            var values: [String: MockValue] = [:]
            for (name, member) in members { values[name] = try read(member, folder: folder) }
            return values.values.contains(where: \.hasBytes) ? .object(values) : .json(value)
        default:
            return .json(value)
        }
    }

    /// Whether bytes stand anywhere in it.
    var hasBytes: Bool {
        if case .json = self { return false }
        return true
    }

    /// The value as JSON for a listing: each bytes value as `{"$bridgeBinary": {"bytes": <count>}}`.
    var summary: JSONValue {
        switch self {
        case .json(let value): value
        case .bytes(let data): .object([Self.bytesKey: .object(["bytes": .int(Int64(data.count))])])
        case .array(let values): .array(values.map(\.summary))
        case .object(let members): .object(members.mapValues(\.summary))
        }
    }

    /// What is wrong with a value of the mock file.
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func bytes(_ spec: JSONValue, folder: URL) throws(Problem) -> Data {
        let usage = "\"\(bytesKey)\" must be {\"base64\": \"…\"} or {\"file\": \"path from the mock file's folder\"}"
        guard let fields = spec.objectValue, fields.count == 1 else { throw Problem(usage) }
        if let text = fields["base64"] {
            guard let base64 = text.stringValue, let data = Data(base64Encoded: base64) else {
                throw Problem("\"\(bytesKey).base64\" is not base64 text (RFC 4648, with padding)")
            }
            return data
        }
        if let name = fields["file"] {
            guard let path = name.stringValue, !path.isEmpty else { throw Problem(usage) }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
            do {
                return try Data(contentsOf: url)
            } catch {
                throw Problem("\"\(bytesKey).file\" \(url.path) cannot be read (\(error.localizedDescription))")
            }
        }
        throw Problem(usage)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .json(let value): try container.encode(value)
        case .bytes(let data): try container.encode(data)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}
