import Foundation
import Testing

@testable import BridgeCookies

@Suite("Cookie persistence")
struct CookiePersistenceTests {
    /// A jar with one cookie of each kind.
    func populatedJar(_ clock: CookieTestClock) throws -> CookieJar {
        let jar = clock.makeJar()
        try jar.set(
            Cookie(
                name: "host", value: "1", domain: "app.example", path: "/a", expires: utc(2031, 1, 1),
                isSecure: true, isHTTPOnly: true, sameSite: .strict))
        clock.advance(by: 1.5)
        try jar.set(
            Cookie(
                name: "dom", value: "Zürich", domain: ".example.org", expires: utc(2031, 6, 1),
                sameSite: CookieSameSite.none))
        try jar.set(Cookie(name: "session", value: "s", domain: "app.example"))
        return jar
    }

    @Test("A save and load keeps host-only flag, Secure, HttpOnly, SameSite, expiry and creation time")
    func roundTrip() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let clock = CookieTestClock()
        let jar = try populatedJar(clock)
        try jar.save(to: file, includeSessionCookies: true)
        let loaded = clock.makeJar()
        #expect(try loaded.load(from: file) == 3)
        #expect(loaded.cookies == jar.cookies)
        #expect(loaded.storage.withLock { $0.entries } == jar.storage.withLock { $0.entries }, "last-access times too")
    }

    @Test("RFC 6265 5.3 session cookies are not saved unless asked; expired cookies never")
    func sessionAndExpired() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let clock = CookieTestClock()
        let jar = try populatedJar(clock)
        try jar.set(Cookie(name: "brief", value: "b", domain: "app.example", expires: clock.now.addingTimeInterval(5)))
        try jar.save(to: file)
        let loaded = clock.makeJar()
        try loaded.load(from: file)
        #expect(loaded.cookies.map(\.name) == ["brief", "host", "dom"])
        clock.advance(by: 5)
        try jar.save(to: file)
        try loaded.load(from: file)
        #expect(loaded.cookies.map(\.name) == ["host", "dom"])
    }

    @Test("Cookies that expire between save and load are dropped on load")
    func expiredOnLoad() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let clock = CookieTestClock()
        let jar = try populatedJar(clock)
        try jar.save(to: file)
        clock.advance(by: 365 * 86_400 + 1)  // past 2031-01-01, before 2031-06-01
        let loaded = clock.makeJar()
        #expect(try loaded.load(from: file) == 1)
        #expect(loaded.cookies.map(\.name) == ["dom"])
    }

    @Test("The file is versioned JSON, readable by the owner only")
    func fileFormat() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try populatedJar(CookieTestClock()).save(to: file)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(object["format"] as? String == "BridgeKit.cookies")
        #expect(object["version"] as? Int == 1)
        let records = try #require(object["cookies"] as? [[String: Any]])
        #expect(records.count == 2)
        let host = try #require(records.first { $0["name"] as? String == "host" })
        #expect(host["hostOnly"] as? Bool == true)
        #expect(host["httpOnly"] as? Bool == true)
        #expect(host["sameSite"] as? String == "Strict")
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
    }

    @Test("No file yet: loading changes nothing and reports zero")
    func missingFile() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example"))
        #expect(try jar.load(from: folder.appendingPathComponent("none.json")) == 0)
        #expect(jar.cookies.count == 1)
    }

    @Test(
        "A corrupt, foreign or newer file fails to load with a typed error and leaves the jar unchanged",
        arguments: [
            ("not json", "corrupt"),
            ("[1,2]", "corrupt"),
            (#"{"format":"other","version":1,"cookies":[]}"#, "corrupt"),
            (#"{"format":"BridgeKit.cookies","version":1,"cookies":[{"name":"a"}]}"#, "corrupt"),
            (
                #"{"format":"BridgeKit.cookies","version":1,"cookies":[{"name":"q","value":"v; path=/admin","domain":"a.example","hostOnly":true,"path":"/","secure":false,"httpOnly":false,"created":0,"lastAccessed":0}]}"#,
                "corrupt"
            ),
            (
                #"{"format":"BridgeKit.cookies","version":1,"cookies":[{"name":"q","value":"v","domain":"a.example","hostOnly":true,"path":"/","secure":false,"httpOnly":false,"sameSite":"Bogus","created":0,"lastAccessed":0}]}"#,
                "corrupt"
            ),
            (#"{"format":"BridgeKit.cookies","version":2,"cookies":[]}"#, "version"),
        ])
    func badFiles(_ contents: String, _ kind: String) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try Data(contents.utf8).write(to: file)
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "kept", value: "1", domain: "app.example"))
        let error = try #require(throws: CookieFileError.self) { try jar.load(from: file) }
        switch (error, kind) {
        case (.corrupt(let path, _), "corrupt"): #expect(path == file.path)
        case (.unsupportedVersion(_, 2, 1), "version"): break
        default: Issue.record("unexpected \(error)")
        }
        #expect(jar.cookies.map(\.name) == ["kept"])
    }

    @Test("A file that cannot be loaded is never replaced silently; replacing it is an explicit choice")
    func refusesToOverwriteUnloadable() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let original = Data(#"{"format":"BridgeKit.cookies","version":9,"cookies":[]}"#.utf8)
        try original.write(to: file)
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example", expires: utc(2031, 1, 1)))
        let error = try #require(throws: CookieFileError.self) { try jar.save(to: file) }
        guard case .refusingToReplaceUnreadableFile(let path, .unsupportedVersion(_, 9, 1)) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == file.path)
        #expect(try Data(contentsOf: file) == original)
        try jar.save(to: file, replacingUnreadableFile: true)
        let loaded = makeFixedJar()
        #expect(try loaded.load(from: file) == 1)
    }

    @Test("A save that fails before the rename leaves the old file intact and no temporary file behind")
    func failedSaveKeepsOldFile() throws {
        struct Crash: Error {}
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "old", value: "1", domain: "app.example", expires: utc(2031, 1, 1)))
        try jar.save(to: file)
        let before = try Data(contentsOf: file)

        try jar.set(Cookie(name: "new", value: "2", domain: "app.example", expires: utc(2031, 1, 1)))
        let error = try #require(throws: CookieFileError.self) {
            try jar.save(
                to: file, includeSessionCookies: false, replacingUnreadableFile: false, beforeRename: { throw Crash() })
        }
        guard case .writeFailed(let path, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == file.path)
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cookies.json"])
        let loaded = makeFixedJar()
        try loaded.load(from: file)
        #expect(loaded.cookies.map(\.name) == ["old"])
    }

    @Test("A stray temporary file from a crash mid-save is ignored: the old file loads and the next save succeeds")
    func strayTemporaryFile() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "old", value: "1", domain: "app.example", expires: utc(2031, 1, 1)))
        try jar.save(to: file)
        let stray = folder.appendingPathComponent(".cookies.json.\(UUID().uuidString).tmp")
        try Data(#"{"format":"BridgeKit.cookies","vers"#.utf8).write(to: stray)  // cut off mid-write

        let loaded = makeFixedJar()
        #expect(try loaded.load(from: file) == 1)
        try loaded.set(Cookie(name: "new", value: "2", domain: "app.example", expires: utc(2031, 1, 1)))
        try loaded.save(to: file)
        let again = makeFixedJar()
        #expect(try again.load(from: file) == 2)
    }

    @Test("A rename that fails (the target is a folder) reports writeFailed and removes the temporary file")
    func failingRename() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("cookies.json")
        try FileManager.default.createDirectory(
            at: target.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example", expires: utc(2031, 1, 1)))
        let refused = try #require(throws: CookieFileError.self) { try jar.save(to: target) }
        guard case .refusingToReplaceUnreadableFile(_, .unreadable) = refused else {
            Issue.record("unexpected \(refused)")
            return
        }
        let failed = try #require(throws: CookieFileError.self) {
            try jar.save(to: target, replacingUnreadableFile: true)
        }
        guard case .writeFailed = failed else {
            Issue.record("unexpected \(failed)")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cookies.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["inside"])
    }

    @Test("Saving into a folder that does not exist fails with writeFailed")
    func missingFolder() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("missing/cookies.json")
        let error = try #require(throws: CookieFileError.self) { try makeFixedJar().save(to: file) }
        guard case .writeFailed = error else {
            Issue.record("unexpected \(error)")
            return
        }
    }
}
