public import BridgeKit
public import Foundation

/// The stock `File.save` task: saves a page's binary value (a `Blob`, `File`, `ArrayBuffer` or
/// typed array) as a file in a directory the app chose, streaming it to disk chunk by chunk
/// (it is never held whole). Page: `WebBridge.call("File.save", {name: "photo.jpg", file: blob})`
/// answers `{name, bytes}`.
///
/// The page names the file, never its directory (`FileName`'s rule: one path component, no
/// hidden files), and it replaces only a regular file of that name. The bytes go to a temporary
/// file in the directory first, moved over the name when complete, so a cancelled, failed or
/// navigated-away upload leaves no partial file.
public struct FileSaveTask: BridgeTask {
    /// The options: the file name and the bytes.
    public struct Options: Decodable, Sendable {
        /// The file name in the app's directory.
        public var name: String
        /// The bytes.
        public var file: BridgeBinary
    }

    /// The result: the file name and the bytes written.
    public struct Saved: Encodable, Sendable {
        /// The file name.
        public var name: String
        /// The bytes written.
        public var bytes: Int
    }

    public let name: String
    public let policy: AccessPolicy?
    private let transfers: BinaryTransfers
    private let directory: URL

    /// Creates the task.
    /// - Parameters:
    ///   - transfers: the byte transport of the router the task is registered on.
    ///   - directory: the directory files are saved in (it must exist).
    ///   - name: the task name; default `"File.save"`.
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(transfers: BinaryTransfers, directory: URL, name: String = "File.save", policy: AccessPolicy? = nil) {
        self.transfers = transfers
        self.directory = directory
        self.name = name
        self.policy = policy
    }

    /// Streams the bytes to a temporary file and moves it over `options.name` in one step
    /// (`rename(2)`): a file of that name is replaced, nothing else is.
    /// - Throws: `BridgeError` `invalid_options` (path `name`) for a name against the rule or one
    ///   taken by something that is not a regular file (a directory, a symbolic link); the
    ///   upload's errors (`BinaryTransfers/upload(of:context:)`); `task_failed` when the file
    ///   cannot be written or moved.
    public func run(_ options: Options, context: CallContext) async throws -> Saved {
        let target = try FileName.url(of: options.name, in: directory)
        // The page names a file: what the name already holds is replaced only when it is a file
        // (a directory, a link or anything else of the app's is never the page's to replace).
        if let attributes = try? FileManager.default.attributesOfItem(atPath: target.path),
            attributes[.type] as? FileAttributeType != .typeRegular
        {
            throw BridgeError.invalidOptions("The name is taken by something that is not a file.", path: "name")
        }
        let temporary = directory.appendingPathComponent(".bridgekit-\(UUID().uuidString).part")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw BridgeError.taskFailed("The file could not be created.")
        }
        var moved = false
        defer { if !moved { try? FileManager.default.removeItem(at: temporary) } }
        let handle = try FileHandle(forWritingTo: temporary)
        var bytes = 0
        do {
            for try await chunk in try transfers.upload(of: options.file, context: context) {
                try handle.write(contentsOf: chunk)
                bytes += chunk.count
            }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        // rename(2) replaces a file in one step and never a directory (it fails instead).
        guard rename(temporary.path, target.path) == 0 else {
            throw BridgeError.taskFailed("The file could not be saved.")
        }
        moved = true
        return Saved(name: options.name, bytes: bytes)
    }
}
