#if WebKitGTK
import CWebKitGTK

/// Converting between JavaScriptCore GLib values (`JSCValue`) and Swift strings without losing
/// characters: strings go through `GBytes` (the C-string functions stop at a NUL).
/// GTK thread only.
enum JSCValueText {
    /// The text of a value: its characters when it is a string (`isString` true), else its JSON text
    /// (`jsc_value_to_json`; "null" when it has none, e.g. undefined or a cyclic object).
    static func text(of value: UnsafeMutablePointer<JSCValue>) -> (text: String, isString: Bool) {
        if jsc_value_is_string(value) != 0 {
            let bytes = jsc_value_to_string_as_bytes(value)
            defer { if let bytes { g_bytes_unref(bytes) } }
            return (gBytesString(bytes), true)
        }
        return (json(of: value) ?? "null", false)
    }

    /// The elements of `value` when it is an array of at most `limit` elements, each a string,
    /// `null` or `undefined` (`nil` for those two); each string is read on its own as UTF-8
    /// (`jsc_value_to_string_as_bytes`, kept without a copy), never through JSON text. `nil` for
    /// any other value.
    static func stringElements(of value: UnsafeMutablePointer<JSCValue>, limit: Int) -> [GTKScriptMessage.SharedBytes?]?
    {
        guard jsc_value_is_array(value) != 0, let lengthValue = jsc_value_object_get_property(value, "length") else {
            return nil
        }
        let length = Int(jsc_value_to_int32(lengthValue))
        g_object_unref(gRaw(lengthValue))
        guard length >= 0, length <= limit else { return nil }
        var elements: [GTKScriptMessage.SharedBytes?] = []
        elements.reserveCapacity(length)
        for index in 0..<length {
            guard let element = jsc_value_object_get_property_at_index(value, guint(index)) else { return nil }
            defer { g_object_unref(gRaw(element)) }
            if jsc_value_is_string(element) != 0 {
                guard let bytes = jsc_value_to_string_as_bytes(element) else { return nil }
                elements.append(GTKScriptMessage.SharedBytes(taking: bytes))
            } else if jsc_value_is_null(element) != 0 || jsc_value_is_undefined(element) != 0 {
                elements.append(nil)
            } else {
                return nil
            }
        }
        return elements
    }

    /// The JSON text of a value, or nil when it has none (undefined, a function, a cyclic object).
    static func json(of value: UnsafeMutablePointer<JSCValue>) -> String? {
        gStringTakingOwnership(jsc_value_to_json(value, 0))
    }

    /// A new string value (transfer full: the caller unrefs it) in `context`. For a reply, that
    /// must be WebKit's current context (``ReplyValueContext/usable()``): WebKit reads reply values
    /// with it, and a string of another virtual machine crashed it.
    static func makeString(_ text: String, in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<
        JSCValue
    >? {
        guard let bytes = gBytesSharing(text) else { return nil }
        defer { g_bytes_unref(bytes) }
        return jsc_value_new_string_from_bytes(context, bytes)
    }
}
#endif
