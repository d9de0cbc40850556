/// What the page asks the Alert task to show.
public struct AlertRequest: Decodable, Sendable, Hashable {
    /// The title; may be absent.
    public var title: String?
    /// The message text; may be absent.
    public var message: String?
    /// The button labels, in order. Absent or empty means one button, `"OK"`.
    public var buttons: [String]

    /// Creates a request.
    public init(title: String? = nil, message: String? = nil, buttons: [String] = ["OK"]) {
        self.title = title
        self.message = message
        self.buttons = buttons.isEmpty ? ["OK"] : buttons
    }

    private enum CodingKeys: String, CodingKey { case title, message, buttons }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        let buttons = try container.decodeIfPresent([String].self, forKey: .buttons) ?? []
        self.buttons = buttons.isEmpty ? ["OK"] : buttons
    }
}
