import Foundation

/// Reads which file an asset scheme request names from its URL, without touching the file system:
/// the path rules shared by WebKitGTK's `GTKAssetURIScheme` and Apple's `WebKitAssetSchemeHandler`
/// (unit-tested in `AssetPathTests`). Pure and thread-safe.
///
/// WebKit hands a scheme handler the URL it parsed: the URL standard has already removed `.` and
/// `..` segments, also `%2e`-spelled ones, so those reach here only from code that builds URLs
/// itself. This reads the URL again byte by byte, decodes each component once, and accepts only
/// plain names: a decoded component may not be `.`, `..` or empty, and may not contain `/`, `\` or
/// NUL, so no spelling of a separator or a parent survives into a file system path.
package enum AssetPath {
    /// Why a request is not served.
    package enum Refusal: Error, Equatable, Sendable {
        /// Not a file of this scheme and host (404): another scheme, host, a port or user name, a
        /// directory, a hidden name, or (from ``AssetFile``) a name that is not a regular file
        /// inside the directory.
        case notFound
        /// The path is not a plain relative file name (400).
        case badPath
        /// Any method but GET (405).
        case methodNotAllowed
        /// A request that names another origin in its `Origin` header (403): a cross-origin `fetch`
        /// or module script, refused before any file is opened; or a request of a view whose main
        /// document is of another origin.
        case forbidden

        /// The HTTP status the request is answered with.
        package var status: Int {
            switch self {
            case .notFound: 404
            case .badPath: 400
            case .methodNotAllowed: 405
            case .forbidden: 403
            }
        }

        /// The one-line text body of the refusal.
        package var text: String {
            switch self {
            case .notFound: "Not found\n"
            case .badPath: "Bad path\n"
            case .methodNotAllowed: "Only GET is allowed\n"
            case .forbidden: "Forbidden\n"
            }
        }
    }

    /// The longest path accepted, in bytes as sent (Linux's `PATH_MAX`).
    package static let maxPathBytes = 4096
    /// The longest component accepted, in bytes once decoded (Linux's `NAME_MAX`).
    package static let maxComponentBytes = 255

    /// The path components (decoded, non-empty, none hidden) that `uri` names under `scheme://host/`.
    /// - Parameters:
    ///   - uri: the request's URL as the engine reports it.
    ///   - scheme: the scheme served, lowercase.
    ///   - host: the host served, lowercase.
    /// - Returns: the components, or why the request is refused (``Refusal/notFound`` or ``Refusal/badPath``).
    package static func components(ofURI uri: String, scheme: String, host: String) -> Result<[String], Refusal> {
        let bytes = Array(uri.utf8)
        let prefix = Array("\(scheme)://\(host)".utf8)
        guard bytes.count > prefix.count, zip(bytes, prefix).allSatisfy({ lowercased($0) == $1 }) else {
            return .failure(.notFound)
        }
        // The authority must end right after the host: a `/` starts the path. A port (`:`), user
        // name (`@`, which made the "host" a user name), a longer host, a query or fragment are not ours.
        var path = bytes[prefix.count...]
        guard path.first == UInt8(ascii: "/") else { return .failure(.notFound) }
        if let end = path.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            path = path[..<end]
        }
        path = path.dropFirst()
        guard path.count <= maxPathBytes else { return .failure(.badPath) }
        guard !path.isEmpty, path.last != UInt8(ascii: "/") else { return .failure(.notFound) }  // a directory
        var components: [String] = []
        var hidden = false
        for raw in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let decoded = percentDecoded(raw), !decoded.isEmpty, decoded.count <= maxComponentBytes else {
                return .failure(.badPath)
            }
            let forbidden: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\\"), 0]
            guard !decoded.contains(where: forbidden.contains), decoded != [UInt8(ascii: ".")],
                decoded != [UInt8(ascii: "."), UInt8(ascii: ".")]
            else { return .failure(.badPath) }
            guard let name = String(validating: decoded, as: UTF8.self) else { return .failure(.badPath) }
            if decoded.first == UInt8(ascii: ".") { hidden = true }
            components.append(name)
        }
        // Hidden names (`.git`, `.env`) are not served, checked after the whole path is known to be
        // plain. By the first byte: `String.hasPrefix(".")` compares Characters, and `.` followed by
        // a combining mark is another Character.
        if hidden { return .failure(.notFound) }
        return .success(components)
    }

    /// Whether a request whose `Origin` header is `origin` may be served: WebKit sends none for a
    /// navigation, an embed (`<img>`, a classic `<script>`, a stylesheet) or a same-origin `GET`,
    /// and sends one for a CORS request of another origin (`fetch`, a module script), whether or
    /// not WebKit would let that page read the answer. Only this scheme's own origin is accepted
    /// then; `null` (an opaque origin) is not.
    /// - Parameters:
    ///   - origin: the header's value, or nil without one.
    ///   - scheme: the scheme served, lowercase.
    ///   - host: the host served, lowercase.
    package static func accepts(origin: String?, scheme: String, host: String) -> Bool {
        guard let origin else { return true }
        return origin.lowercased() == "\(scheme)://\(host)"
    }

    /// Whether the view's main document, at `viewURI` (the page shown or being loaded:
    /// `webkit_web_view_get_uri`, `WKWebView.url`), is of the scheme's origin: only then are the
    /// folder's files served. A page of another origin in the view (one the app's page navigated
    /// to, or a link followed) could otherwise embed them (`<img>` sends no `Origin`), a thousand
    /// at a time: an open file and a stream each, a gigabyte of the app's memory in seconds (found
    /// by an outside attack).
    /// - Parameters:
    ///   - viewURI: the view's URL, or nil without one.
    ///   - scheme: the scheme served, lowercase.
    ///   - host: the host served, lowercase.
    package static func servesView(at viewURI: String?, scheme: String, host: String) -> Bool {
        guard let viewURI, let parts = URLComponents(string: viewURI) else { return false }
        return parts.scheme?.lowercased() == scheme && parts.host?.lowercased() == host && parts.port == nil
            && parts.user == nil && parts.password == nil
    }

    /// The `Content-Type` of a file named `name`, by its extension (case-insensitive).
    package static func contentType(forName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "wasm": return "application/wasm"
        case "woff2": return "font/woff2"
        default: return "application/octet-stream"
        }
    }

    /// The headers of every answer: its type, its length when known, and no sniffing of another.
    /// - Parameters:
    ///   - contentType: the `Content-Type`.
    ///   - length: the body's length in bytes, or nil to send no `Content-Length`.
    package static func headers(contentType: String, length: Int64? = nil) -> [String: String] {
        var headers = ["Content-Type": contentType, "X-Content-Type-Options": "nosniff"]
        if let length { headers["Content-Length"] = String(length) }
        return headers
    }

    /// Schemes that already mean something to WebKit, the web platform or BridgeKit.
    package static let reservedSchemes: Set<String> = [
        "http", "https", "file", "data", "blob", "about", "javascript", "ws", "wss", "ftp", "resource",
        "view-source", "filesystem", "webkit", "webkit-pdfjs-viewer", "mailto", "tel", "sms", "urn",
        "webbridge-binary",
    ]

    /// Whether `text` is a lowercase URI scheme name (`[a-z][a-z0-9+.-]*`, at most 32 bytes) that
    /// is not one of ``reservedSchemes``.
    package static func isValidScheme(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 32, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed && !reservedSchemes.contains(text)
    }

    /// Whether `text` is a lowercase host name: `a`–`z`, digits, `-` and `.`, not starting or
    /// ending with `.` or `-`, at most 253 bytes.
    package static func isValidHost(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 253 else { return false }
        let edges: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "-")]
        guard !edges.contains(first), !edges.contains(last) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || edges.contains(byte)
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Decodes `%XX` escapes once; nil for a `%` not followed by two hex digits.
    private static func percentDecoded(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 2 < raw.endIndex, let high = HexDigit.value(raw[index + 1]),
                let low = HexDigit.value(raw[index + 2])
            else { return nil }
            out.append(high << 4 | low)
            index += 3
        }
        return out
    }
}
