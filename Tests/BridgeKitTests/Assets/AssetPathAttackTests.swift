import BridgeKit
import Foundation
import Testing

/// Attacks on the asset scheme's path and file checks (`AssetPath`, `AssetFile`) that need
/// no web view: file names that are not valid UTF-8, and names or directories that are spelled
/// differently in bytes but are canonically equivalent Unicode. Each test plants a tree the way an
/// extracted archive or a user-writable folder could, and requests a file the documented checks
/// say is refused.
@Suite("Asset scheme path attacks")
struct AssetPathAttackTests {
    /// A temporary directory removed afterwards.
    private final class Base {
        let path: String
        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("asset-attack-\(UUID().uuidString)").path
            try Self.check(mkdir(path, 0o700))
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        static func check(_ result: Int32, _ line: Int = #line) throws {
            guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }

        /// `path` and `relative` joined as bytes (so `relative` may hold bytes that are not UTF-8).
        func bytes(_ relative: [UInt8]) -> [CChar] {
            (Array(path.utf8) + [UInt8(ascii: "/")] + relative + [0]).map { CChar(bitPattern: $0) }
        }

        func mkdirAt(_ relative: [UInt8]) throws { try Self.check(mkdir(bytes(relative), 0o700)) }
        func symlinkAt(_ relative: [UInt8], to target: [UInt8]) throws {
            let cTarget = (target + [0]).map { CChar(bitPattern: $0) }
            try Self.check(symlink(cTarget, bytes(relative)))
        }
        func write(_ relative: [UInt8], _ text: String) throws {
            let fd = open(bytes(relative), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            defer { close(fd) }
            let data = Array(text.utf8)
            _ = data.withUnsafeBytes { writeBytes(fd, $0.baseAddress, $0.count) }
        }
    }

    private static func u(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static func read(_ opened: AssetFile.Opened) -> String { AssetPathTests.read(opened) }

    /// `realpath`'s answer is turned into a `String` with `String(cString:)`, which replaces bytes
    /// that are not UTF-8 with U+FFFD; the file then opened is the one at the *repaired* path, not
    /// the one that was checked. A link inside the folder to `a<0xFF>/passwd` (a real file inside)
    /// resolves inside, but the open goes through `a<U+FFFD>`, a link out of the folder that was
    /// never checked.
    @Test(
        "a resolved path with a byte that is not UTF-8 opens the file that was checked, not another",
        .timeLimit(.minutes(1)))
    func invalidUTF8ResolvedPathOpensTheCheckedFile() throws {
        let base = try Base()
        try base.mkdirAt(Self.u("root"))
        try base.mkdirAt(Self.u("outside"))
        try base.write(Self.u("outside/passwd"), "SECRET-OUTSIDE")
        try base.mkdirAt(Self.u("root/a") + [0xFF])
        try base.write(Self.u("root/a") + [0xFF] + Self.u("/passwd"), "decoy-inside")
        // The repaired spelling of that directory: a link out of the folder.
        try base.symlinkAt(Self.u("root/a\u{FFFD}"), to: Self.u(base.path + "/outside"))
        // A link inside the folder to the real (non-UTF-8) directory's file: it resolves inside.
        try base.symlinkAt(Self.u("root/p"), to: Self.u("a") + [0xFF] + Self.u("/passwd"))

        let assets = try AssetFolder(directory: URL(fileURLWithPath: base.path + "/root"))
        // Sanity: the link out itself is refused.
        #expect(AssetFile.open(["a\u{FFFD}", "passwd"], root: assets.rootPath) == .failure(.notFound))
        switch AssetFile.open(["p"], root: assets.rootPath) {
        case .success(let opened):
            let text = Self.read(opened)
            #expect(text != "SECRET-OUTSIDE", "served a file outside the folder through an unchecked link")
        case .failure:
            break  // refusing a path that is not UTF-8 is fine
        }
    }

    /// The "inside the folder" check is `resolved.hasPrefix(root + "/")` on Swift strings, which
    /// compare by Unicode canonical equivalence, not bytes: a folder `café` (NFC) and a sibling
    /// `café` spelled `cafe` + U+0301 (NFD) are different directories to Linux but "the same
    /// prefix" to Swift, so a link from the folder into the sibling counts as inside.
    @Test(
        "a link into a sibling directory whose name is a canonically equivalent spelling of the folder's is refused",
        .timeLimit(.minutes(1)))
    func canonicallyEquivalentSiblingIsOutside() throws {
        let base = try Base()
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        try base.mkdirAt(Self.u(nfc))
        try base.mkdirAt(Self.u(nfd))
        try base.write(Self.u(nfd + "/secret.txt"), "SECRET-SIBLING")
        try base.write(Self.u(nfc + "/index.html"), "hello")
        try base.symlinkAt(Self.u(nfc + "/link.txt"), to: Self.u("../" + nfd + "/secret.txt"))

        let assets = try AssetFolder(directory: URL(fileURLWithPath: base.path + "/" + nfc))
        #expect(try Self.read(AssetFile.open(["index.html"], root: assets.rootPath).get()) == "hello")
        let opened = AssetFile.open(["link.txt"], root: assets.rootPath)
        if case .success(let file) = opened {
            Issue.record("served \(Self.read(file)) from outside the folder")
        }
        #expect(opened == .failure(.notFound))
    }

    /// Hidden names are refused with `name.hasPrefix(".")`, which compares Characters: a name that
    /// starts with `.` followed by a combining mark (U+0301) starts with the Character `.́`, not `.`,
    /// so the file — hidden to `ls` and to the documented rule "a path component that starts with
    /// `.`" — is served.
    @Test("a hidden name whose dot carries a combining mark is still hidden", .timeLimit(.minutes(1)))
    func hiddenNameWithCombiningMark() {
        let result = AssetPath.components(ofURI: "app://bundle/.%CC%81env", scheme: "app", host: "bundle")
        #expect(result == .failure(.notFound), "\(result)")
        let nested = AssetPath.components(ofURI: "app://bundle/.%CC%81git/config", scheme: "app", host: "bundle")
        #expect(nested == .failure(.notFound), "\(nested)")
    }

    /// The other side of comparing Characters: a file inside the folder whose name starts with a
    /// combining mark makes `/` + mark one Character, so `hasPrefix(root + "/")` said "outside".
    @Test("a file whose name starts with a combining mark is inside the folder", .timeLimit(.minutes(1)))
    func nameStartingWithCombiningMark() throws {
        let base = try Base()
        try base.mkdirAt(Self.u("root"))
        try base.write(Self.u("root/\u{301}x.txt"), "inside")
        let assets = try AssetFolder(directory: URL(fileURLWithPath: base.path + "/root"))
        #expect(try Self.read(AssetFile.open(["\u{301}x.txt"], root: assets.rootPath).get()) == "inside")
    }
}

/// The C `write`, under a name that no method hides.
private func writeBytes(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
