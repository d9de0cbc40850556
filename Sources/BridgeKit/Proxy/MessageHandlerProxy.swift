import Foundation

/// The object a host registers with the web view's content controller.
///
/// Content controllers retain their script message handlers strongly
/// (`WKUserContentController`, `WebKitUserContentManager` through its signal closure), and the
/// handler's owner usually retains the web view: a cycle that keeps a screen alive forever
/// (field case R23). The proxy breaks it: it holds the router **weakly**. When the router is
/// gone, a message that still arrives is dropped without a crash, and a call that can be
/// answered through a reply handler is answered with `unavailable`.
///
/// Thread safety: `Sendable`; ``receive(_:from:replyHandler:)`` may be called on any thread.
public final class MessageHandlerProxy: @unchecked Sendable {
    /// Written only by `init`; loading a weak reference is thread-safe. (`weak let`, which would
    /// say so to the compiler, needs Swift 6.2, SE-0481; the package supports Swift 6.1.)
    private weak var weakRouter: BridgeRouter?

    /// The router messages go to, while it is alive.
    public var router: BridgeRouter? { weakRouter }

    /// Creates a proxy.
    /// - Parameter router: the router to forward to; held weakly.
    public init(router: BridgeRouter) {
        weakRouter = router
    }

    /// Forwards a message to the router, or answers it with `unavailable` when the router is
    /// gone.
    public func receive(_ body: MessageBody, from source: MessageSource, replyHandler: ReplyHandler? = nil) {
        if let router {
            router.receive(body, from: source, replyHandler: replyHandler)
            return
        }
        guard let replyHandler else { return }
        replyHandler.reply(Self.unavailableReply(for: body))
    }

    /// Forwards the head of a body its host did not read whole
    /// (``BridgeRouter/receiveHead(_:byteCount:reason:from:replyHandler:)``), or answers it with
    /// `unavailable` when the router is gone.
    public func receiveHead(
        _ head: String, byteCount: Int, reason: HeadOnlyReason, from source: MessageSource,
        replyHandler: ReplyHandler? = nil
    ) {
        if let router {
            router.receiveHead(head, byteCount: byteCount, reason: reason, from: source, replyHandler: replyHandler)
            return
        }
        replyHandler?.reply(Self.unavailableReply(for: .string(head)))
    }

    /// Whether the router admits `source` (``BridgeRouter/admitsSender(_:)``); false when the
    /// router is gone. Any thread.
    public func admitsSender(_ source: MessageSource) -> Bool {
        router?.admitsSender(source) ?? false
    }

    /// The JSON text of an `unavailable` reply for the call in `body`, or `nil` when the body
    /// names no id.
    /// - Parameter message: the reply's error message.
    static func unavailableReply(for body: MessageBody, message: String = "The bridge was released.") -> String? {
        let text: Data
        switch body {
        case .absent: return nil
        case .string(let string): text = Data(string.utf8)
        case .json(let data):
            guard let unwrapped = BridgeRouter.unwrapJSONString(data) else { return nil }
            text = unwrapped
        }
        guard let id = text.withUnsafeBytes({ BodyScan($0.bindMemory(to: UInt8.self)).id }) else { return nil }
        return (try? ReplyPipeline.failure(id: id, .unavailable(message)))?.replyText
    }
}
