#if WebKitGTK
import CWebKitGTK
public import Foundation

/// A message a page posted to a script message handler of a ``GTKWebView``.
public struct GTKScriptMessage: Sendable {
    /// The posted value, as read on the GTK thread.
    enum Body: Sendable {
        /// A string's characters, or the JSON text of any other value.
        case text(String)
        /// A short array of strings, `null` and `undefined` (see ``GTKScriptMessage/stringElements``):
        /// each string's UTF-8 as JavaScriptCore wrote it, not copied.
        case strings([SharedBytes?])
    }

    let body: Body

    /// True when the page posted a JavaScript string (then ``bodyJSONText`` is that string itself).
    public let isString: Bool
    /// The answer channel when the handler was registered with reply, else nil.
    public let reply: ScriptMessageReply?

    init(body: Body, isString: Bool, reply: ScriptMessageReply?) {
        self.body = body
        self.isString = isString
        self.reply = reply
    }

    /// The posted value as text: the raw characters when the page posted a string, otherwise the
    /// value's JSON text (`jsc_value_to_json`; "null" when it has no JSON form, e.g. undefined).
    /// For a value with ``stringElements`` the JSON text is written on each read (what
    /// `JSON.stringify` writes for the array: `null` for null and undefined elements).
    public var bodyJSONText: String {
        switch body {
        case .text(let text): text
        case .strings(let elements): Self.jsonArray(elements.map { $0?.string })
        }
    }

    /// When the page posted an array of at most ``maxStringElements`` elements, each a string,
    /// `null` or `undefined`: its elements (`nil` for `null` and `undefined`), each string
    /// received as its own string, never escaped into JSON text (a large element is not copied
    /// again). `nil` for any other value.
    public var stringElements: [String?]? {
        if case .strings(let elements) = body { return elements.map { $0?.string } }
        return nil
    }

    /// The same elements as ``stringElements``, as the UTF-8 bytes JavaScriptCore wrote for each
    /// string (`jsc_value_to_string_as_bytes`), without a copy: the `Data` shares the engine's
    /// buffer and keeps it alive. A lone UTF-16 surrogate is written as its 3-byte sequence
    /// (`ED A0…BF xx`, not valid UTF-8); ``stringElements`` decodes it as U+FFFD.
    public var utf8Elements: [Data?]? {
        if case .strings(let elements) = body { return elements.map { $0?.data } }
        return nil
    }

    /// The longest array whose elements ``stringElements`` gives; longer arrays arrive as JSON text.
    public static let maxStringElements = 16

    /// A `GBytes`, referenced once and unreferenced when the last user is gone. GLib's byte
    /// buffers are immutable and reference-counted atomically, so any thread may read them.
    final class SharedBytes: @unchecked Sendable {
        private let bytes: OpaquePointer

        /// Takes over one reference to `bytes`.
        init(taking bytes: OpaquePointer) {
            self.bytes = bytes
        }

        deinit { g_bytes_unref(bytes) }

        /// The bytes decoded as UTF-8 (a copy; invalid sequences become U+FFFD).
        var string: String { gBytesString(bytes) }

        /// The bytes, shared: the `Data` holds this object until it is released.
        var data: Data {
            var size: gsize = 0
            guard let base = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: Int(size),
                deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
        }
    }

    /// `JSON.stringify` of an array of strings and nulls.
    static func jsonArray(_ elements: [String?]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let element else {
                out.append(contentsOf: "null".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x00..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
#endif
