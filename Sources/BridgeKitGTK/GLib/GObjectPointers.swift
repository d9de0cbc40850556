#if WebKitGTK
import CWebKitGTK

// Small helpers for moving between GObject pointer types. GObject "casts" are plain pointer
// reinterpretations in C (`WEBKIT_WEB_VIEW (obj)`); Swift imports each GObject struct as its own
// pointer type, so the casts go through a raw pointer here. Only ever used on pointers that WebKit
// or GTK handed out for exactly that type (GObject type hierarchy), never on data a page controls.

/// Reinterprets a GObject pointer as a raw pointer (for `gpointer` parameters).
@inline(__always)
func gRaw<P>(_ pointer: UnsafeMutablePointer<P>) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(pointer)
}

/// Reinterprets a GObject pointer as a pointer to one of its GObject super or sub types.
@inline(__always)
func gCast<T>(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<T> {
    pointer.assumingMemoryBound(to: T.self)
}

/// A GObject (or other GTK-thread-owned C) pointer that may be carried across threads but is only
/// dereferenced on the GTK thread (see ``GTKThread``). The wrapper does not retain anything: work
/// posted to run later (``GTKThread/post(_:)``) must own what it touches, by capturing the Swift
/// object that holds the reference or by taking one of its own (`g_object_ref`, released by the
/// work), since whoever handed the pointer over may have dropped it by then.
struct GPointer<T>: @unchecked Sendable {
    /// The pointer; use it only on the GTK thread.
    let pointer: UnsafeMutablePointer<T>

    init(_ pointer: UnsafeMutablePointer<T>) {
        self.pointer = pointer
    }

    /// The pointer as `gpointer`.
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }
}

/// An opaque C pointer (`SoupCookie *`, `WebKitScriptMessageReply *`, …) carried like ``GPointer``.
struct GOpaque: @unchecked Sendable {
    /// The pointer; use it only on the GTK thread.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }
}

/// Copies a NUL-terminated UTF-8 C string owned by GLib/WebKit (not freed here); nil stays nil.
func gString(_ pointer: UnsafePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: pointer)
}

/// Copies and then `g_free`s a newly allocated C string (transfer full); nil stays nil.
func gStringTakingOwnership(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// Reads the message of a `GError`, frees it and returns the message (empty if there was none).
func gErrorMessageTakingOwnership(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "" }
    defer { g_error_free(error) }
    return gString(error.pointee.message) ?? ""
}

/// Converts a `@convention(c)` function into the untyped `GCallback` that `g_signal_connect_data`
/// expects (the C `G_CALLBACK` macro). The real signature must match the signal's marshaller; every
/// caller documents the signature it implements. Passing anything but a C function pointer (e.g. a
/// Swift method that shadows the callback's name) traps at once: `unsafeBitCast` checks the size.
@inline(__always)
func gCallback<F>(_ function: F) -> GCallback {
    unsafeBitCast(function, to: GCallback.self)
}

/// True when `text` contains no NUL character, i.e. survives the trip through a C string intact.
func isCStringSafe(_ text: String) -> Bool {
    !text.utf8.contains(0)
}

/// Copies the UTF-8 bytes of `text` into a new `GBytes` (transfer full: the caller unrefs it).
func gBytes(_ text: String) -> OpaquePointer? {
    var copy = text
    return copy.withUTF8 { buffer in
        g_bytes_new(buffer.baseAddress, gsize(buffer.count))
    }
}

/// A `GBytes` over the UTF-8 storage of `text` itself, without copying it, for texts of at least
/// `minimumShared` bytes (smaller ones are copied by ``gBytes(_:)``, and so is a text whose
/// storage is not contiguous UTF-8). The `GBytes` keeps the string alive until it is freed.
/// Transfer full: the caller unrefs it.
///
/// A native Swift string's UTF-8 storage is a heap object that neither moves nor changes while the
/// string is alive and not mutated, so its address stays valid for as long as the box holds it.
func gBytesSharing(_ text: String, minimumShared: Int = 64 * 1024) -> OpaquePointer? {
    guard text.utf8.count >= minimumShared, text.isContiguousUTF8 else { return gBytes(text) }
    let box = SharedTextBox(text)
    guard let base = box.text.utf8.withContiguousStorageIfAvailable({ $0.baseAddress }) ?? nil else {
        return gBytes(text)
    }
    let owner = Unmanaged.passRetained(box).toOpaque()
    return g_bytes_new_with_free_func(
        base, gsize(box.text.utf8.count),
        { owner in
            if let owner { Unmanaged<SharedTextBox>.fromOpaque(owner).release() }
        }, owner)
}

/// Holds the string whose storage a `GBytes` from ``gBytesSharing(_:minimumShared:)`` points into.
private final class SharedTextBox {
    let text: String
    init(_ text: String) { self.text = text }
}

/// Decodes a `GBytes` as UTF-8 (invalid sequences become U+FFFD); does not unref it.
func gBytesString(_ bytes: OpaquePointer?) -> String {
    guard let bytes else { return "" }
    var size: gsize = 0
    guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(size)), as: UTF8.self)
}
#endif
