import Foundation

/// Any JSON value, for tasks that take or return untyped data.
///
/// Numbers keep their kind: an integer that fits `Int64` stays exact (field case R11: the JSON
/// number 9007199254740993 is never read through `Double`), and JSON booleans are never numbers
/// (field case R10). Use the typed accessors, which answer `nil` on a type mismatch instead of
/// converting.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, or `nil` when this is not an object or has no such key.
    /// A member that is JSON `null` is returned as ``null``.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The member `key` of an object as a `Bool`; `nil` when absent or not a JSON boolean (a `0` is not `false`).
    public func bool(_ key: String) -> Bool? {
        if case .bool(let value)? = self[key] { return value }
        return nil
    }

    /// The member `key` of an object as an integer; `nil` when absent, not a number, a boolean, or not whole.
    public func int(_ key: String) -> Int64? {
        switch self[key] {
        case .int(let value)?: return value
        case .double(let value)? where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    /// The member `key` of an object as a `Double`; `nil` when absent or not a number.
    public func double(_ key: String) -> Double? {
        switch self[key] {
        case .int(let value)?: return Double(value)
        case .double(let value)?: return value
        default: return nil
        }
    }

    /// The member `key` of an object as a `String`; `nil` when this is not an object, the member
    /// is absent, JSON `null`, or not a string (`"true"` is a string, `true` is not).
    ///
    /// This reads an object member: `JSONValue.string("Ada").string("name")` is `nil`. For the
    /// string this value itself holds, use ``stringValue``.
    public func string(_ key: String) -> String? {
        if case .string(let value)? = self[key] { return value }
        return nil
    }

    /// Whether this value is JSON `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    // MARK: Accessors for this value itself

    /// The string this value holds; `nil` for any other kind (`"1"` is a string, `1` is not).
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer this value holds; `nil` for any other kind, a boolean, or a number that is not
    /// whole or does not fit `Int64` (`1.0` is `1`, `1.5` is `nil`).
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    /// The number this value holds as a `Double`; `nil` for any other kind (a boolean is not a
    /// number). A large integer may lose precision; use ``intValue`` to read it exactly.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean this value holds; `nil` for any other kind (`0` is not `false`).
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements of this array; `nil` for any other kind.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members of this object; `nil` for any other kind.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSONValue: CustomStringConvertible {
    /// This value as compact JSON text, object members sorted by key, for example
    /// `{"name":"Ada","tags":["x"]}`. A `Double` that JSON cannot hold (NaN, infinity) prints
    /// as `null`, as `JSON.stringify` writes it.
    public var description: String {
        var text = ""
        Self.write(self, to: &text)
        return text
    }

    private static func write(_ value: JSONValue, to text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value):
            if !value.isFinite {
                text += "null"
            } else if value.rounded() == value && abs(value) < 1e15 {
                text += String(Int64(value))
            } else {
                text += "\(value)"
            }
        case .string(let value): writeString(value, to: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                write(element, to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                writeString(key, to: &text)
                text += ":"
                if let member = members[key] { write(member, to: &text) }
            }
            text += "}"
        }
    }

    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
