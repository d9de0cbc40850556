import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Foundation
import Testing

/// The `File` task family through the in-memory byte transport.
@Suite("File tasks")
struct FileTaskTests {
    static func setup() throws -> (InMemoryPage, InMemoryBinaryTransport, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bridgekit-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        let transfers = BinaryTransfers(
            router: router, limits: BinaryLimits(chunkBytes: 1000, requestWait: 2, claimWait: 2))
        try router.register(FileSaveTask(transfers: transfers, directory: directory))
        try router.register(FileOpenTask(transfers: transfers, directory: directory))
        return (InMemoryPage(router: router), InMemoryBinaryTransport(transfers: transfers), directory)
    }

    @Test(
        "File.save streams a page's bytes into the app's directory; File.open hands them back", .timeLimit(.minutes(1)))
    func saveAndOpen() async throws {
        let (page, transport, directory) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = Data((0..<10_000).map { UInt8($0 % 7) })
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: data.count)
        async let saved = page.call("File.save", options: ["name": "a.bin", "file": placeholder])
        #expect(await transport.upload(data, token: token) == 200)
        #expect(await saved["data"] == ["name": "a.bin", "bytes": 10_000])
        #expect(try Data(contentsOf: directory.appendingPathComponent("a.bin")) == data)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.bin"], "no temporary file left")

        let opened = await page.call("File.open", options: ["name": "a.bin"])
        #expect(opened["data"]?["size"] == 10_000)
        let back = try #require(opened["data"]?["file"]?[BridgeBinary.placeholderKey]?.string("token"))
        let (status, body) = await transport.download(back)
        #expect(status == 200)
        #expect(body == data)
    }

    @Test(
        "the page names a file, never a directory: paths, hidden and missing files are invalid_options",
        arguments: [
            "../x", "a/b", ".hidden", "", "..", "c\\d", "a/\u{301}b", ".\u{301}x", "c\\\u{301}d", "e\u{0}\u{301}",
        ])
    func refusedNames(name: String) async throws {
        let (page, _, directory) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 1)
        let save = await page.call("File.save", options: ["name": .string(name), "file": placeholder])
        #expect(save["error"]?.string("code") == "invalid_options")
        let open = await page.call("File.open", options: ["name": .string(name)])
        #expect(open["error"]?.string("code") == "invalid_options")
    }

    @Test(
        "a '/' or '.' followed by a combining mark is still a separator or a hidden file's dot: the rule reads bytes, not characters (Swift's Character is a grapheme)",
        .timeLimit(.minutes(1)))
    func separatorsHiddenInGraphemes() async throws {
        let (page, transport, directory) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The app's directory holds a folder of its own with a file of its own.
        let folder = directory.appendingPathComponent("private")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("app secret".utf8).write(to: folder.appendingPathComponent("\u{301}keys"))
        for name in ["private/\u{301}planted", ".\u{301}hidden"] {
            let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 4)
            let id = try #require(page.send("File.save", options: ["name": .string(name), "file": placeholder]))
            _ = await transport.upload(Data("evil".utf8), token: token)
            let save = await page.reply(for: id)
            #expect(save["error"]?.string("code") == "invalid_options", "\(name): \(save)")
        }
        let open = await page.call("File.open", options: ["name": "private/\u{301}keys"])
        #expect(open["error"]?.string("code") == "invalid_options", "the app's file in its folder: \(open)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["\u{301}keys"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["private"])
    }

    @Test("a cancelled save leaves no file", .timeLimit(.minutes(1)))
    func cancelledSave() async throws {
        let (page, transport, directory) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 100)
        let id = try #require(page.send("File.save", options: ["name": "b.bin", "file": placeholder]))
        async let status = transport.upload(Data(repeating: 1, count: 10), token: token)
        #expect(await status == 400, "a body that ends short")
        _ = await page.reply(for: id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
