/// Native-to-page messages of protocol v1 (see docs/protocol.md), encoded in one pass together
/// with their payload.
enum OutboundMessage: Encodable, Sendable {
    /// The final answer to a page call.
    case reply(id: String, result: Result<any Encodable & Sendable, BridgeError>)
    /// A non-final answer to a page call.
    case progress(id: String, data: any Encodable & Sendable)
    /// A named event for `WebBridge.on(name, …)` listeners.
    case event(name: String, data: any Encodable & Sendable)
    /// A native-to-page call of a handler registered with `WebBridge.handle(name, …)`.
    case call(id: String, handler: String, options: any Encodable & Sendable)
    /// Withdraws a native-to-page call (timeout or cancellation on the native side).
    case cancel(id: String)

    /// The protocol version every message carries.
    static let version = 1

    private enum Key: String, CodingKey {
        case v, kind, id, ok, data, error, name, task, options
    }

    /// The `kind` member.
    var kind: String {
        switch self {
        case .reply: "reply"
        case .progress: "progress"
        case .event: "event"
        case .call: "call"
        case .cancel: "cancel"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Self.version, forKey: .v)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .reply(let id, let result):
            try container.encode(id, forKey: .id)
            switch result {
            case .success(let data):
                try container.encode(true, forKey: .ok)
                try container.encode(data, forKey: .data)
            case .failure(let error):
                try container.encode(false, forKey: .ok)
                try container.encode(error, forKey: .error)
            }
        case .progress(let id, let data):
            try container.encode(id, forKey: .id)
            try container.encode(data, forKey: .data)
        case .event(let name, let data):
            try container.encode(name, forKey: .name)
            try container.encode(data, forKey: .data)
        case .call(let id, let handler, let options):
            try container.encode(id, forKey: .id)
            try container.encode(handler, forKey: .task)
            try container.encode(options, forKey: .options)
        case .cancel(let id):
            try container.encode(id, forKey: .id)
        }
    }
}
