import Foundation

@testable import BridgeKit

/// The test oracle of ``ReplyPipeline``: a `Codable` encoding of every native-to-page message,
/// member by member. Encoded with `BridgeJSON`, it is the text the pipeline's writer must produce
/// byte for byte (`ReplyPipelineOracleTests`). Only tests use it; the router never encodes a
/// message this way.
extension OutboundMessage: Encodable {
    /// The protocol version every message carries.
    static let version = 1

    private enum Key: String, CodingKey {
        case v, kind, id, ok, data, error, name, task, options, binary
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
        case .reply(let id, let result, let binary):
            try container.encode(id, forKey: .id)
            if !binary.isEmpty { try container.encode(binary, forKey: .binary) }
            switch result {
            case .success(let data):
                try container.encode(true, forKey: .ok)
                try container.encode(data, forKey: .data)
            case .failure(let error):
                try container.encode(false, forKey: .ok)
                try container.encode(error, forKey: .error)
            }
        case .progress(let id, let data, let binary):
            try container.encode(id, forKey: .id)
            if !binary.isEmpty { try container.encode(binary, forKey: .binary) }
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
