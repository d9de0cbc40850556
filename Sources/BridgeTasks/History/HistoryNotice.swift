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
            throw DecodingError.dataCorruptedError(
                forKey: .url, in: container, debugDescription: "Not an absolute URL.")
        }
        self.url = url
    }
}
