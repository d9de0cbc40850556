import Foundation

/// What the router needs to decode a message in one pass: the registered tasks (to decode a
/// call's options straight into the task's `Options` type while the envelope is decoded), the
/// sender and the router's policy (to refuse before decoding options at all).
struct InboundDecodingContext: Sendable {
    let tasks: [String: AnyBridgeTask]
    let source: MessageSource
    let policy: AccessPolicy

    /// The `userInfo` key; `CodingUserInfoKey(rawValue:)` is failable, though it accepts any text.
    static let key = CodingUserInfoKey(rawValue: "BridgeKit.InboundDecodingContext")
}

/// A call from the page, prepared for running, or the reason it cannot run.
struct InboundCall: Sendable {
    let id: String?
    let taskName: String
    /// The task and where its options come from, or the error to settle the call with.
    let prepared: Result<PreparedCall, BridgeError>
    /// The refusal reason when the policy refused the call (`"subframe"`, …), for the log.
    let refusal: String?
}

/// One decoded page-to-native message (protocol v1, see docs/protocol.md).
enum InboundMessage: Sendable {
    case call(InboundCall)
    case cancel(id: String)
    case reply(id: String, result: Result<JSONValue, BridgeError>)
    /// Not a usable message; `id` is set when the body named one, so the call can be answered.
    case invalid(id: String?, error: BridgeError)
}

/// The envelope, decoded with ``InboundDecodingContext`` in the decoder's `userInfo`.
struct InboundEnvelope: Decodable {
    let message: InboundMessage

    private enum Key: String, CodingKey {
        case v, kind, id, callbackId, task, options, ok, data, error
    }

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<Key>
        do {
            container = try decoder.container(keyedBy: Key.self)
        } catch {
            message = .invalid(id: nil, error: .invalidMessage("The message is not a JSON object."))
            return
        }
        let id: String?
        do {
            id = try Self.decodeID(container)
        } catch {
            message = .invalid(id: nil, error: .invalidMessage("The member \"id\" must be a string."))
            return
        }
        if let problem = Self.versionProblem(container) {
            message = .invalid(id: id, error: problem)
            return
        }
        let kind =
            (try? container.decodeIfPresent(String.self, forKey: .kind))
            ?? (container.contains(.task) ? "call" : nil)
        switch kind {
        case "call":
            message = Self.decodeCall(container, id: id, decoder: decoder)
        case "cancel":
            if let id {
                message = .cancel(id: id)
            } else {
                message = .invalid(id: nil, error: .invalidMessage("A cancel needs an id."))
            }
        case "reply":
            message = Self.decodeReply(container, id: id)
        default:
            message = .invalid(
                id: id,
                error: .invalidMessage(
                    "Unknown message kind \(kind.map { "\"\($0)\"" } ?? "(none)").",
                    details: ["kind": kind.map(JSONValue.string) ?? .null]))
        }
    }

    private static func decodeID(_ container: KeyedDecodingContainer<Key>) throws -> String? {
        if let id = try container.decodeIfPresent(String.self, forKey: .id) { return id }
        return try container.decodeIfPresent(String.self, forKey: .callbackId)
    }

    private static func versionProblem(_ container: KeyedDecodingContainer<Key>) -> BridgeError? {
        guard container.contains(.v) else { return nil }
        guard let version = try? container.decode(Int.self, forKey: .v) else {
            return .invalidMessage("The member \"v\" must be an integer.")
        }
        guard version == 1 else {
            return .invalidMessage("Protocol version \(version) is not supported.", details: ["supported": [1]])
        }
        return nil
    }

    private static func decodeCall(_ container: KeyedDecodingContainer<Key>, id: String?, decoder: any Decoder)
        -> InboundMessage
    {
        guard let name = try? container.decode(String.self, forKey: .task), !name.isEmpty else {
            return .invalid(id: id, error: .invalidMessage("A call needs a non-empty string \"task\"."))
        }
        guard let key = InboundDecodingContext.key, let context = decoder.userInfo[key] as? InboundDecodingContext
        else {
            return .invalid(id: id, error: .unavailable("The router is not decoding."))
        }
        do {
            return try prepareCall(
                id: id, name: name, task: context.tasks[name], source: context.source,
                policy: context.policy
            ) { task in
                try task.decodeOptions(container.superDecoder(forKey: .options))
            }
        } catch let error as DecodingError {
            let failure = DecodingErrorDescription(error)
            return .call(
                InboundCall(
                    id: id, taskName: name,
                    prepared: .failure(.invalidOptions(failure.message, path: failure.path)), refusal: nil))
        } catch {
            // Thrown by the task's own `Options` type: its text reaches the page only when it is
            // meant for the page (``PageFacingError``); otherwise only the log gets it.
            var failure = BridgeError.invalidOptions("The options could not be decoded.", path: "")
            if let facing = error as? any PageFacingError {
                failure.message = facing.pageErrorMessage
            } else {
                failure.internalDescription = String(reflecting: error)
            }
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(failure), refusal: nil))
        }
    }

    /// The call `name` prepared for running: refused by the policy (the task's own, else the
    /// router's `policy`) before anything else, `unknown_task` when no task has that name
    /// (`task` is `nil`), otherwise the task with the options `decodeOptions` produced for it.
    /// - Throws: what `decodeOptions` throws; the caller maps it to `invalid_options`.
    static func prepareCall(
        id: String?, name: String, task: AnyBridgeTask?, source: MessageSource, policy: AccessPolicy,
        decodeOptions: (AnyBridgeTask) throws -> any Sendable
    ) throws -> InboundMessage {
        if let reason = (task?.policy ?? policy).refusal(for: source) {
            let error = BridgeError.forbidden(reason: reason, origin: source.origin?.description)
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(error), refusal: reason))
        }
        guard let task else {
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(.unknownTask(name)), refusal: nil))
        }
        let options = try decodeOptions(task)
        return .call(
            InboundCall(
                id: id, taskName: name, prepared: .success(PreparedCall(task: task, input: .options(options))),
                refusal: nil))
    }

    private static func decodeReply(_ container: KeyedDecodingContainer<Key>, id: String?) -> InboundMessage {
        guard let id else { return .invalid(id: nil, error: .invalidMessage("A reply needs an id.")) }
        guard let ok = try? container.decode(Bool.self, forKey: .ok) else {
            return .invalid(id: nil, error: .invalidMessage("A reply needs a boolean \"ok\"."))
        }
        if ok {
            let data = (try? container.decodeIfPresent(JSONValue.self, forKey: .data)) ?? .null
            return .reply(id: id, result: .success(data))
        }
        let error =
            (try? container.decode(BridgeError.self, forKey: .error))
            ?? .taskFailed("The page failed the call without a readable error.")
        return .reply(id: id, result: .failure(error))
    }
}
