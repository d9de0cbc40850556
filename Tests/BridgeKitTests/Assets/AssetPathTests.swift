import BridgeKit
import Foundation
import Testing

/// The asset scheme's decisions without a web view, shared by WebKitGTK and Apple: which file a
/// request URI names (`AssetPath`), how it is opened inside the directory (`AssetFile`), its
/// content type, and the checks of `AssetFolder`'s initializer. The GTK end-to-end suite
/// `AssetScheme` sends the same kinds of requests through WebKit; `AssetSchemeDriverTests` through
/// the Apple handler's logic.
@Suite("Asset scheme paths")
struct AssetPathTests {
    private static func components(_ uri: String) -> Result<[String], AssetPath.Refusal> {
        AssetPath.components(ofURI: uri, scheme: "app", host: "bundle")
    }

    @Test("plain file paths resolve to their components, query and fragment ignored", .timeLimit(.minutes(1)))
    func plainPaths() {
        #expect(Self.components("app://bundle/index.html") == .success(["index.html"]))
        #expect(Self.components("app://bundle/js/app.js?v=2#top") == .success(["js", "app.js"]))
        #expect(Self.components("app://bundle/a%20b.txt") == .success(["a b.txt"]))
        #expect(Self.components("app://bundle/caf%C3%A9.txt") == .success(["café.txt"]))
        #expect(
            Self.components("APP://Bundle/x.css") == .success(["x.css"]), "scheme and host compare case-insensitively")
        #expect(Self.components("app://bundle/a..b.txt") == .success(["a..b.txt"]), "dots inside a name are a name")
    }

    @Test("another scheme, host, a port, a user name or a directory is not found", .timeLimit(.minutes(1)))
    func notFound() {
        for uri in [
            "", "app:", "app://", "app://bundle", "app://bundle/", "app://bundle/dir/", "app://other/index.html",
            "app://bundle.evil/index.html", "app://bundle:8080/index.html", "app://user@bundle/index.html",
            "app://user:pw@bundle/index.html", "https://bundle/index.html", "apps://bundle/index.html",
            "app:/bundle/index.html", "app:bundle/index.html", "app://bundle/.hidden", "app://bundle/%2Ehidden",
            "app://bundle/dir/.git/config",
        ] {
            #expect(Self.components(uri) == .failure(.notFound), "\(uri)")
        }
    }

    @Test(
        "dot segments, encoded separators, NUL, empty components and broken encodings are bad paths",
        .timeLimit(.minutes(1)))
    func badPaths() {
        for uri in [
            "app://bundle/../secret.txt", "app://bundle/a/../../secret.txt", "app://bundle/./index.html",
            "app://bundle/%2e%2e/secret.txt", "app://bundle/%2E%2E/secret.txt", "app://bundle/.%2e/secret.txt",
            "app://bundle/%2e", "app://bundle/..%2fsecret.txt", "app://bundle/%2e%2e%2fsecret.txt",
            "app://bundle/sub/..%2F..%2Fsecret.txt", "app://bundle/a%2fb", "app://bundle/..%5csecret.txt",
            "app://bundle/a\\b", "app://bundle/a%00b", "app://bundle/a//b", "app://bundle//etc/passwd",
            "app://bundle/%2Fetc%2Fpasswd", "app://bundle/%zz", "app://bundle/%", "app://bundle/a%f",
            "app://bundle/%ff.txt", "app://bundle/%C3", "app://bundle/" + String(repeating: "a/", count: 2100) + "b",
            "app://bundle/" + String(repeating: "x", count: 256),
        ] {
            #expect(Self.components(uri) == .failure(.badPath), "\(uri.prefix(80))")
        }
    }

    @Test(
        "requests without an Origin header or with the scheme's own are served, others refused", .timeLimit(.minutes(1))
    )
    func origins() {
        for uri in ["app://bundle/index.html", "APP://Bundle/a/b?c#d", "app://bundle"] {
            #expect(AssetPath.servesView(at: uri, scheme: "app", host: "bundle"), "\(uri)")
        }
        for uri in [
            nil, "", "about:blank", "http://127.0.0.1:8080/", "app://other/", "app://bundle:80/", "app://u@bundle/",
            "data:text/html,x", "app:bundle",
        ] {
            #expect(!AssetPath.servesView(at: uri, scheme: "app", host: "bundle"), "\(uri ?? "nil")")
        }
        #expect(AssetPath.accepts(origin: nil, scheme: "app", host: "bundle"))
        #expect(AssetPath.accepts(origin: "app://bundle", scheme: "app", host: "bundle"))
        #expect(AssetPath.accepts(origin: "APP://Bundle", scheme: "app", host: "bundle"))
        for origin in [
            "null", "", "http://127.0.0.1:8080", "https://bundle", "app://bundle:1", "app://other", "app://bundle/",
        ] {
            #expect(!AssetPath.accepts(origin: origin, scheme: "app", host: "bundle"), "\(origin)")
        }
        #expect(AssetPath.Refusal.forbidden.status == 403)
        #expect(AssetPath.Refusal.notFound.status == 404)
        #expect(AssetPath.Refusal.badPath.status == 400)
        #expect(AssetPath.Refusal.methodNotAllowed.status == 405)
    }

    @Test("refusals and folder errors say what went wrong, naming the text given", .timeLimit(.minutes(1)))
    func descriptions() {
        #expect(AssetPath.Refusal.notFound.text == "Not found\n")
        #expect(AssetPath.Refusal.badPath.text == "Bad path\n")
        #expect(AssetPath.Refusal.methodNotAllowed.text == "Only GET is allowed\n")
        #expect(AssetPath.Refusal.forbidden.text == "Forbidden\n")
        #expect(AssetFolderError.invalidScheme("http").description.contains("\"http\""))
        #expect(AssetFolderError.invalidHost("Bundle").description.contains("\"Bundle\""))
        #expect(AssetFolderError.notADirectory("/nope").description.hasPrefix("/nope "))
        #expect(AssetFolderError.schemeInUse("app").description.contains("\"app\""))
        #expect(
            AssetPath.headers(contentType: "image/png", length: 3) == [
                "Content-Type": "image/png", "Content-Length": "3", "X-Content-Type-Options": "nosniff",
            ])
        #expect(AssetPath.headers(contentType: "image/png")["Content-Length"] == nil)
    }

    @Test("content types come from the extension, case-insensitively", .timeLimit(.minutes(1)))
    func contentTypes() {
        let expected: [String: String] = [
            "index.html": "text/html; charset=utf-8", "A.HTM": "text/html; charset=utf-8",
            "app.js": "text/javascript; charset=utf-8", "m.mjs": "text/javascript; charset=utf-8",
            "s.css": "text/css; charset=utf-8", "d.json": "application/json; charset=utf-8",
            "i.svg": "image/svg+xml", "i.png": "image/png", "i.jpg": "image/jpeg", "i.JPEG": "image/jpeg",
            "i.gif": "image/gif", "i.webp": "image/webp", "m.wasm": "application/wasm", "f.woff2": "font/woff2",
            "r.txt": "text/plain; charset=utf-8", "x.exe": "application/octet-stream",
            "README": "application/octet-stream",
            "archive.tar.gz": "application/octet-stream", "trailing.": "application/octet-stream",
        ]
        for (name, type) in expected {
            #expect(AssetPath.contentType(forName: name) == type, "\(name)")
        }
    }

    /// A temporary tree: `root/` with files, a directory, hidden file, links in and out, a FIFO;
    /// `secret.txt` and `outside/` beside it.
    final class Tree {
        let base: URL
        let root: URL
        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("asset-path-\(UUID().uuidString)")
            root = base.appendingPathComponent("root")
            let manager = FileManager.default
            try manager.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try manager.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
            try Data("SECRET".utf8).write(to: base.appendingPathComponent("secret.txt"))
            try Data("SECRET".utf8).write(to: base.appendingPathComponent("outside/file.txt"))
            try Data("hello".utf8).write(to: root.appendingPathComponent("index.html"))
            try Data("nested".utf8).write(to: root.appendingPathComponent("sub/n.txt"))
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("out.txt").path, withDestinationPath: "../secret.txt")
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("abs.txt").path,
                withDestinationPath: base.appendingPathComponent("secret.txt").path)
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("outdir").path, withDestinationPath: "../outside")
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("in.txt").path, withDestinationPath: "sub/n.txt")
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("loop").path, withDestinationPath: "loop")
            guard mkfifo(root.appendingPathComponent("fifo").path, 0o600) == 0 else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        deinit { try? FileManager.default.removeItem(at: base) }
    }

    /// The first 64 bytes of an opened file, as text; closes it.
    static func read(_ opened: AssetFile.Opened) -> String {
        defer { AssetFile.close(opened) }
        let data = (try? AssetFile.read(opened, maxBytes: 64).get()) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "files inside open; a link inside is followed; nothing outside, no directory, FIFO or loop",
        .timeLimit(.minutes(1)))
    func opening() throws {
        let tree = try Tree()
        let root = try #require(AssetFile.resolveDirectory(tree.root.path))
        let index = try AssetFile.open(["index.html"], root: root).get()
        #expect(index.size == 5)
        #expect(Self.read(index) == "hello")
        #expect(try Self.read(AssetFile.open(["sub", "n.txt"], root: root).get()) == "nested")
        #expect(
            try Self.read(AssetFile.open(["in.txt"], root: root).get()) == "nested", "a link inside the directory")
        for path in [
            ["out.txt"], ["abs.txt"], ["outdir", "file.txt"], ["outdir"], ["sub"], ["fifo"], ["loop"], ["missing"],
            ["sub", "missing"], ["index.html", "x"],
        ] {
            #expect(AssetFile.open(path, root: root) == .failure(.notFound), "\(path)")
        }
    }

    @Test("the scheme's initializer checks its scheme, host and directory", .timeLimit(.minutes(1)))
    func initializerChecks() throws {
        let tree = try Tree()
        let assets = try AssetFolder(directory: tree.root)
        #expect(assets.origin == SecurityOrigin("app://bundle"))
        #expect(assets.uri(for: "index.html") == "app://bundle/index.html")
        #expect(assets.uri(for: "/a b/c#?.txt") == "app://bundle/a%20b/c%23%3F.txt")
        let custom = try AssetFolder(directory: tree.root, scheme: "my-app.v2", host: "ui.local")
        #expect(custom.origin.description == "my-app.v2://ui.local")
        #expect(
            try AccessPolicy.checkedOrigins(["my-app.v2://ui.local"]).refusal(
                for: MessageSource(origin: custom.origin, isMainFrame: true)) == nil)
        for scheme in [
            "", "App", "1app", "http", "https", "file", "data", "blob", "about", "javascript",
            "webbridge-binary", "a b", "app:", "ä",
        ] {
            #expect(throws: AssetFolderError.invalidScheme(scheme)) {
                try AssetFolder(directory: tree.root, scheme: scheme)
            }
        }
        for host in ["", "Bundle", "a/b", "a:1", ".a", "a.", "-a", "a b", "u@h", "[::1]"] {
            #expect(throws: AssetFolderError.invalidHost(host)) {
                try AssetFolder(directory: tree.root, host: host)
            }
        }
        let file = tree.root.appendingPathComponent("index.html")
        #expect(throws: AssetFolderError.notADirectory(file.path)) { try AssetFolder(directory: file) }
        let missing = tree.base.appendingPathComponent("missing")
        #expect(throws: AssetFolderError.notADirectory(missing.path)) {
            try AssetFolder(directory: missing)
        }
        let viaLink = tree.base.appendingPathComponent("link-to-root")
        try FileManager.default.createSymbolicLink(atPath: viaLink.path, withDestinationPath: "root")
        #expect(
            try AssetFolder(directory: viaLink).directory.path == AssetFile.resolveDirectory(tree.root.path))
    }
}
