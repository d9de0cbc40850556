#if WebKitGTK
@testable import BridgeKitGTK
import BridgeKit
import Foundation
import Testing

/// `GTKAssetURIScheme` is BridgeKit's `AssetFolder` (the path rules, tested in BridgeKitTests'
/// `AssetPathTests`) under WebKitGTK's name: the same checks, origin, URIs and root path.
@Suite("Asset scheme (GTK value)")
struct AssetURISchemeTests {
    @Test("the GTK scheme is the shared folder: same checks, origin, URIs and root", .timeLimit(.minutes(1)))
    func sameAsTheFolder() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("asset-gtk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let assets = try GTKAssetURIScheme(directory: base, scheme: "my-app", host: "ui")
        let folder = try AssetFolder(directory: base, scheme: "my-app", host: "ui")
        #expect(assets.folder == folder)
        #expect(GTKAssetURIScheme(folder: folder) == assets)
        #expect(assets.origin == SecurityOrigin("my-app://ui"))
        #expect(assets.uri(for: "a b/index.html") == "my-app://ui/a%20b/index.html")
        #expect(assets.rootPath == AssetFile.resolveDirectory(base.path))
        #expect(assets.directory == folder.directory)
        #expect(throws: GTKAssetURISchemeError.invalidScheme("http")) {
            try GTKAssetURIScheme(directory: base, scheme: "http")
        }
        #expect(throws: GTKAssetURISchemeError.invalidHost("Bundle")) {
            try GTKAssetURIScheme(directory: base, host: "Bundle")
        }
        let missing = base.appendingPathComponent("missing")
        #expect(throws: GTKAssetURISchemeError.notADirectory(missing.path)) {
            try GTKAssetURIScheme(directory: missing)
        }
    }
}
#endif
