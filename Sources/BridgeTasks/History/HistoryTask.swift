public import BridgeKit
public import Foundation

/// One history change in the page, as the shim reports it.
public struct HistoryNotice: Decodable, Sendable, Hashable {
    /// What changed the history.
    public enum Kind: String, Decodable, Sendable, Hashable {
        /// `history.pushState` added an entry.
        case pushState
        /// `history.replaceState` replaced the current entry.
        case replaceState
        /// The person went back or forward (`popstate`).
        case popstate
    }

    /// What changed the history.
    public var type: Kind
    /// The page's absolute URL after the change.
    public var url: URL

    /// Creates a notice.
    public init(type: Kind, url: URL) {
        self.type = type
        self.url = url
    }

    private enum CodingKeys: String, CodingKey { case type, url }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(Kind.self, forKey: .type)
        let text = try container.decode(String.self, forKey: .url)
        guard let url = URL(string: text), url.scheme != nil else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "Not an absolute URL.")
        }
        self.url = url
    }
}

/// The stock `History` task: receives the shim's history notices (pushState, replaceState,
/// popstate) and hands them to the host as an `AsyncStream`, for example to update a back
/// button.
///
/// The stream keeps the newest ``bufferLimit`` notices when the host reads slower than the page
/// navigates, so memory stays bounded. Calls settle with `null`.
public struct HistoryTask: BridgeTask {
    /// How many unread notices the stream keeps.
    public static let bufferLimit = 256

    public let name: String
    public let policy: AccessPolicy?
    /// The notices, in the order the page sent them. Single consumer.
    public let notices: AsyncStream<HistoryNotice>
    private let continuation: AsyncStream<HistoryNotice>.Continuation

    /// Creates the task and its stream.
    /// - Parameters:
    ///   - name: the task name; default `"History"` (the shim posts to that name).
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(name: String = "History", policy: AccessPolicy? = nil) {
        self.name = name
        self.policy = policy
        (notices, continuation) = AsyncStream.makeStream(of: HistoryNotice.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
    }

    /// Ends the stream; later notices are dropped.
    public func finish() {
        continuation.finish()
    }

    public func run(_ options: HistoryNotice, context: CallContext) async throws -> NoResult {
        continuation.yield(options)
        return NoResult()
    }
}
