/// The kinds of message a ``TrafficRecord`` names (its ``TrafficRecord/kind``), as the router
/// writes them; the raw value is the record's text.
enum TrafficKind: String, Sendable {
    /// A page-to-native call (inbound), or a native-to-page call (outbound).
    case call
    /// A cancel of a call.
    case cancel
    /// A final reply.
    case reply
    /// A progress message of a call.
    case progress
    /// An event to the page's listeners.
    case event
    /// A new task list for the page.
    case tasks
}

/// The reasons a ``TrafficRecord`` gives (its ``TrafficRecord/reason``): why a message was not
/// delivered, or how it was handled.
enum TrafficReason: Sendable, Equatable {
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
    /// The engine failed to evaluate the script, with its error.
    case evaluateFailed(String)
    /// The access policy refused the sender, with the policy's reason (`subframe`,
    /// `origin_not_allowed`, ...).
    case refused(String)

    /// The record's text.
    var text: String {
        switch self {
        case .navigated: "navigated"
        case .noChannel: "no_channel"
        case .noReplyPath: "no_reply_path"
        case .notDelivered: "not_delivered"
        case .fireAndForget: "fire_and_forget"
        case .subframeNotDelivered: "subframe_not_delivered"
        case .evaluateFailed(let error): "evaluate_failed: \(error)"
        case .refused(let reason): reason
        }
    }
}
