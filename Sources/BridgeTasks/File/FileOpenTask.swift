public import BridgeKit
public import Foundation

/// The stock `File.open` task: hands a file from a directory the app chose to the page, streamed
/// from disk chunk by chunk (never held whole). Page:
/// `const {file} = await WebBridge.call("File.open", {name: "report.pdf"})` gives `file` as a
/// `Uint8Array` (`new Blob([file])` for a Blob).
///
/// The page names the file, never its directory (`FileName`'s rule).
public struct FileOpenTask: BridgeTask {
    /// The options: the file name.
    public struct Options: Decodable, Sendable {
        /// The file name in the app's directory.
        public var name: String
        /// The MIME type to report, if the page wants one.
        public var type: String?
    }

    /// The result: the name, the size in bytes, and the bytes.
    public struct Opened: Encodable, Sendable {
        /// The file name.
        public var name: String
        /// The size in bytes.
        public var size: Int
        /// The bytes (a `Uint8Array` in the page).
        public var file: BridgeBinary
    }

    public let name: String
    public let policy: AccessPolicy?
    private let transfers: BinaryTransfers
    private let directory: URL

    /// Creates the task.
    /// - Parameters:
    ///   - transfers: the byte transport of the router the task is registered on.
    ///   - directory: the directory files are read from.
    ///   - name: the task name; default `"File.open"`.
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(transfers: BinaryTransfers, directory: URL, name: String = "File.open", policy: AccessPolicy? = nil) {
        self.transfers = transfers
        self.directory = directory
        self.name = name
        self.policy = policy
    }

    /// Offers the file as a stream of chunks.
    /// - Throws: `BridgeError` `invalid_options` for a name against the rule or a file that is
    ///   not there (path `name`); the offer's errors (`BinaryTransfers/send(chunks:size:type:context:)`).
    public func run(_ options: Options, context: CallContext) async throws -> Opened {
        let url = try FileName.url(of: options.name, in: directory)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue,
            let handle = try? FileHandle(forReadingFrom: url)
        else {
            throw BridgeError.invalidOptions("There is no such file.", path: "name")
        }
        let chunkBytes = transfers.limits.chunkBytes
        // Pulled: a chunk is read from disk only when the page's request reads the previous one.
        let chunks = AsyncThrowingStream<Data, any Error>(unfolding: {
            guard let chunk = try handle.read(upToCount: chunkBytes), !chunk.isEmpty else {
                try? handle.close()
                return nil
            }
            return chunk
        })
        let binary = try await transfers.send(chunks: chunks, size: size, type: options.type, context: context)
        return Opened(name: options.name, size: size, file: binary)
    }
}
