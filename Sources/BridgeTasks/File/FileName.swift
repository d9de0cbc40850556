import BridgeKit

/// The rule for a file name a page passes to the `File` tasks: one path component of at most 255
/// bytes of UTF-8, not `.` or `..`, without `/`, `\`, NUL or a leading `.` (no hidden files). The
/// directory is always the app's; the page only names a file in it.
enum FileName {
    /// `name` when it follows the rule.
    /// - Throws: `BridgeError` `invalid_options` (path `name`) otherwise.
    static func checked(_ name: String) throws(BridgeError) -> String {
        let bad =
            name.isEmpty || name.utf8.count > 255 || name.hasPrefix(".")
            || name.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\0" })
        if bad { throw .invalidOptions("The file name is not allowed.", path: "name") }
        return name
    }
}
