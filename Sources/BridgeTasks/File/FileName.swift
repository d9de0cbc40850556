import BridgeKit
import Foundation

/// The rule for a file name a page passes to the `File` tasks: one path component of at most 255
/// bytes of UTF-8, not `.` or `..`, without `/`, `\`, NUL or a leading `.` (no hidden files). The
/// directory is always the app's; the page only names a file in it.
///
/// The rule reads the name's UTF-8 bytes, never its `Character`s: a Swift `Character` is a
/// grapheme, so `"/"` followed by a combining mark is one `Character` that is not equal to `"/"`,
/// while the file system sees the `/` byte.
enum FileName {
    /// The file `name` names in `directory`, when the name follows the rule.
    /// - Throws: `BridgeError` `invalid_options` (path `name`) otherwise.
    static func url(of name: String, in directory: URL) throws(BridgeError) -> URL {
        let bytes = name.utf8
        let bad =
            bytes.isEmpty || bytes.count > 255 || bytes.first == UInt8(ascii: ".")
            || bytes.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
        let url = directory.appendingPathComponent(name, isDirectory: false)
        // The URL Foundation made names one file directly in the directory (a second check of the
        // same rule, on what is opened).
        guard !bad, url.lastPathComponent == name,
            url.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path
        else { throw .invalidOptions("The file name is not allowed.", path: "name") }
        return url
    }
}
