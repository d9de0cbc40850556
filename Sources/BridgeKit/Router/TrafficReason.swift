/// Why a ``TrafficRecord``'s message was not delivered, or how it was handled (its
/// ``TrafficRecord/reason``). In a log it is its ``description``: `"navigated"`, `"no_channel"`,
/// `"evaluate_failed: <error>"`, the policy's reason for a refusal, ...
public enum TrafficReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The page navigated since the call: the reply is not delivered.
    case navigated
    /// No page channel is connected.
    case noChannel
    /// The reply has no way to the page (a subframe or refused sender without a reply handler).
    case noReplyPath
    /// A call ended by a navigation: it got no reply (its document is gone).
    case notDelivered
    /// A fire-and-forget call: nothing is answered.
    case fireAndForget
    /// Progress of a subframe call: there is no ordered script path to its frame.
    case subframeNotDelivered
    /// The engine failed to evaluate the script, with its error's description.
    case evaluateFailed(String)
    /// The access policy refused the sender, with the policy's reason (`subframe`,
    /// `origin_not_allowed`, ...).
    case refused(String)

    /// The record's text: `navigated`, `no_channel`, `no_reply_path`, `not_delivered`,
    /// `fire_and_forget`, `subframe_not_delivered`, `evaluate_failed: <error>`, or the policy's
    /// reason for a refusal.
    public var description: String {
        switch self {
        case .navigated: "navigated"
        case .noChannel: "no_channel"
        case .noReplyPath: "no_reply_path"
        case .notDelivered: "not_delivered"
        case .fireAndForget: "fire_and_forget"
        case .subframeNotDelivered: "subframe_not_delivered"
        case .evaluateFailed(let error): Self.evaluateFailedPrefix + error
        case .refused(let reason): reason
        }
    }

    /// The reason a ``description`` names (any text that is no other reason is a refusal's).
    public init(_ description: String) {
        switch description {
        case "navigated": self = .navigated
        case "no_channel": self = .noChannel
        case "no_reply_path": self = .noReplyPath
        case "not_delivered": self = .notDelivered
        case "fire_and_forget": self = .fireAndForget
        case "subframe_not_delivered": self = .subframeNotDelivered
        default:
            if description.hasPrefix(Self.evaluateFailedPrefix) {
                self = .evaluateFailed(String(description.dropFirst(Self.evaluateFailedPrefix.count)))
            } else {
                self = .refused(description)
            }
        }
    }

    private static let evaluateFailedPrefix = "evaluate_failed: "

    /// Encodes the reason as its ``description``, a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes a reason from its ``description``.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
}
