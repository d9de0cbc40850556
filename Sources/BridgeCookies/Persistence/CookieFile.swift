import Foundation

/// The cookie file format: UTF-8 JSON, `{"format":"BridgeKit.cookies","version":1,"cookies":[…]}`.
///
/// Each record keeps everything the jar needs to resume exactly: name, value, domain, the
/// host-only flag, path, expiry, Secure, HttpOnly, SameSite, creation and last-access times.
/// Times are seconds since 1970-01-01T00:00:00Z (UTC). Loading checks every record against
/// ``CookieValuePolicy``; one bad record makes the whole file ``CookieFileError/corrupt(path:reason:)``.
enum CookieFile {
    static let formatName = "BridgeKit.cookies"
    static let currentVersion = 1

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    private struct Contents: Codable {
        var format: String
        var version: Int
        var cookies: [Record]
    }

    private struct Record: Codable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var expires: Date?
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String?
        /// Present (`true`) only for partitioned cookies, so version-1 files without it still load.
        var partitioned: Bool?
        var created: Date
        var lastAccessed: Date
    }

    /// Encodes `entries` as a version-1 file.
    static func encode(_ entries: [CookieStorage.Entry]) throws(CookieFileError) -> Data {
        let records = entries.map { entry in
            let cookie = entry.cookie
            return Record(
                name: cookie.name, value: cookie.value, domain: cookie.domain, hostOnly: cookie.isHostOnly,
                path: cookie.path, expires: cookie.expires, secure: cookie.isSecure, httpOnly: cookie.isHTTPOnly,
                sameSite: cookie.sameSite?.rawValue, partitioned: cookie.isPartitioned ? true : nil,
                created: cookie.creationTime ?? entry.lastAccess,
                lastAccessed: entry.lastAccess)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            return try encoder.encode(Contents(format: formatName, version: currentVersion, cookies: records))
        } catch {
            throw .writeFailed(path: "", reason: "cannot encode the cookies: \(error)")
        }
    }

    /// Decodes a file read from `path`.
    /// - Throws: ``CookieFileError/corrupt(path:reason:)`` or ``CookieFileError/unsupportedVersion(path:version:supported:)``.
    static func decode(_ data: Data, path: String) throws(CookieFileError) -> [CookieStorage.Entry] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let header = try? decoder.decode(Header.self, from: data) else {
            throw .corrupt(path: path, reason: "not a JSON object")
        }
        guard header.format == formatName, let version = header.version else {
            throw .corrupt(path: path, reason: "not a \(formatName) file")
        }
        guard version == currentVersion else {
            throw .unsupportedVersion(path: path, version: version, supported: currentVersion)
        }
        let contents: Contents
        do {
            contents = try decoder.decode(Contents.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: "malformed: \(error)")
        }
        var entries: [CookieStorage.Entry] = []
        for (index, record) in contents.cookies.enumerated() {
            guard let entry = entry(from: record) else {
                throw .corrupt(path: path, reason: "cookie record \(index) breaks the cookie rules")
            }
            entries.append(entry)
        }
        return entries
    }

    /// A record becomes an entry only if it is exactly what the jar would have stored.
    private static func entry(from record: Record) -> CookieStorage.Entry? {
        var sameSite: CookieSameSite?
        if let text = record.sameSite {
            guard let value = CookieSameSite(rawValue: text) else { return nil }
            sameSite = value
        }
        let cookie = Cookie(
            name: record.name, value: record.value, domain: record.domain, isHostOnly: record.hostOnly,
            path: record.path, expires: record.expires, isSecure: record.secure,
            isHTTPOnly: record.httpOnly, sameSite: sameSite, isPartitioned: record.partitioned ?? false,
            creationTime: record.created)
        guard let normalized = try? CookieValuePolicy.normalized(cookie), normalized == cookie else { return nil }
        return CookieStorage.Entry(cookie: cookie, lastAccess: record.lastAccessed)
    }

    /// Reads the file at `url`. - Returns: `nil` when there is no file.
    /// - Throws: ``CookieFileError/unreadable(path:reason:)``.
    static func readData(at url: URL) throws(CookieFileError) -> Data? {
        let path = url.path(percentEncoded: false)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Checks that saving to `url` destroys nothing unreadable: no file, or a file that loads.
    /// - Throws: ``CookieFileError/refusingToReplaceUnreadableFile(path:cause:)``.
    static func ensureReplaceable(_ url: URL) throws(CookieFileError) {
        let path = url.path(percentEncoded: false)
        do throws(CookieFileError) {
            guard let data = try readData(at: url) else { return }
            _ = try decode(data, path: path)
        } catch {
            throw .refusingToReplaceUnreadableFile(path: path, cause: error)
        }
    }
}
