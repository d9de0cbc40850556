import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Foundation
import Testing

/// Kind of fault: a page's file name reaching what the page cannot name. `File.save` removed the
/// target before moving its bytes in (`FileManager.removeItem`), so a name that was a
/// subdirectory's deleted the directory and every file in it, and answered `ok` (found by
/// attacking the byte transport). A save now replaces only a regular file, in one step.
@Suite("File.save: what a name already holds")
struct FileSaveTargetTests {
    /// Saves three bytes as `name` and returns the reply.
    static func save(_ name: String, page: InMemoryPage, transport: InMemoryBinaryTransport) async -> JSONValue {
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 3)
        async let saved = page.call("File.save", options: ["name": .string(name), "file": placeholder])
        _ = await transport.upload(Data([1, 2, 3]), token: token)
        return await saved
    }

    @Test(
        "a name taken by a subdirectory is invalid_options; the directory and its files stay", .timeLimit(.minutes(1)))
    func subdirectory() async throws {
        let (page, transport, directory) = try FileTaskTests.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photos = directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let kept = photos.appendingPathComponent("keep.jpg")
        try Data("the app's own file".utf8).write(to: kept)

        let reply = await Self.save("photos", page: page, transport: transport)
        #expect(reply["error"]?.string("code") == "invalid_options", "\(reply)")
        #expect(FileManager.default.fileExists(atPath: kept.path), "the page's save deleted photos/keep.jpg")
        #expect(try Data(contentsOf: kept) == Data("the app's own file".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["photos"], "no temporary file left")
    }

    @Test(
        "a name taken by a symbolic link is invalid_options; the link and what it points to stay",
        .timeLimit(.minutes(1)))
    func symbolicLink() async throws {
        let (page, transport, directory) = try FileTaskTests.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bridgekit-outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data("elsewhere".utf8).write(to: outside)
        let link = directory.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

        let reply = await Self.save("link.txt", page: page, transport: transport)
        #expect(reply["error"]?.string("code") == "invalid_options", "\(reply)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == outside.path)
        #expect(try Data(contentsOf: outside) == Data("elsewhere".utf8))
    }

    @Test("a name taken by a file is replaced by the page's bytes", .timeLimit(.minutes(1)))
    func regularFile() async throws {
        let (page, transport, directory) = try FileTaskTests.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.bin")
        try Data("older and longer".utf8).write(to: file)

        let reply = await Self.save("a.bin", page: page, transport: transport)
        #expect(reply["data"] == ["name": "a.bin", "bytes": 3], "\(reply)")
        #expect(try Data(contentsOf: file) == Data([1, 2, 3]))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.bin"], "no temporary file left")
    }
}
