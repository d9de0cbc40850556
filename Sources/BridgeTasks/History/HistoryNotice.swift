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
    /// The page's absolute URL after the change, exactly as the page has it (`location.href`):
    /// the text to load again or show. WHATWG URL, which the page follows, leaves characters such
    /// as `|`, `[`, `]` and a `%` not followed by two hexadecimal digits as they are.
    public var href: String
    /// ``href`` read by Foundation, for its parts (scheme, host, path). Foundation
    /// percent-encodes what RFC 3986 does not allow, so its text can differ from ``href``
    /// (`/50%off` becomes `/50%25off`, another resource): load or show ``href``.
    public var url: URL

    /// Creates a notice of `url`; its ``href`` is `url.absoluteString`.
    public init(type: Kind, url: URL) {
        self.type = type
        self.href = url.absoluteString
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
        self.href = text
        self.url = url
    }
}
