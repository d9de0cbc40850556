public import Foundation

/// One line of the router's traffic log: a message in or out, or a call's outcome.
///
/// Hosts print it (bridgehost writes one JSON line per record) or feed it to their own logging.
/// It never carries payloads, only their sizes.
///
/// Records come in the order they were made. An outbound record is made once the engine has
/// evaluated its script (or refused it), since it says whether the script reached the page; the
/// page may answer before that (a `callPage`'s reply, an event's listener calling a task), so its
/// inbound record can come before the outbound one it answers.
public struct TrafficRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Which way the message went.
    public enum Direction: String, Sendable, Codable {
        /// Page to native.
        case inbound = "in"
        /// Native to page.
        case outbound = "out"
    }

    /// When the record was made.
    public var time: Date
    /// Page to native, or native to page.
    public var direction: Direction
    /// The message kind.
    public var kind: TrafficKind
    /// The call id, if any. The router records at most 256 bytes of UTF-8 of it (a longer id is
    /// refused as none: docs/protocol.md, "call").
    public var id: String?
    /// The task (or page handler) name, if any. The router records at most 256 bytes of UTF-8 of a
    /// name the page sent (its first Unicode scalars that fit in 253, then "…"), as its errors
    /// repeat it: an unknown task's name is whatever the page wrote.
    public var task: String?
    /// For replies: `"ok"` or the error code. For inbound messages that were refused or
    /// dropped: the error code or `"dropped"`. `nil` for an accepted inbound message.
    public var outcome: String?
    /// Why the message was not delivered or how it was handled: the policy refusal
    /// (``TrafficReason/refused(_:)``), ``TrafficReason/navigated``, ``TrafficReason/noChannel``,
    /// an engine error (``TrafficReason/evaluateFailed(_:)``), ...
    public var reason: TrafficReason?
    /// The size of the message in bytes of UTF-8 JSON.
    public var bytes: Int
    /// For a reply whose error the page got only as a generic message: the full description
    /// (`String(reflecting:)`) of the error the task threw, or of the error that kept its result
    /// from being encoded. The page never sees it (see ``PageFacingError``). Unlike the rest of
    /// the record it is not BridgeKit's text: it may hold whatever the error held (paths,
    /// queries, credentials), so treat the log as being as sensitive as the app's own logs.
    public var internalError: String?

    /// Creates a record.
    public init(
        time: Date = Date(), direction: Direction, kind: TrafficKind, id: String? = nil, task: String? = nil,
        outcome: String? = nil, reason: TrafficReason? = nil, bytes: Int = 0, internalError: String? = nil
    ) {
        self.time = time
        self.direction = direction
        self.kind = kind
        self.id = id
        self.task = task
        self.outcome = outcome
        self.reason = reason
        self.bytes = bytes
        self.internalError = internalError
    }

    /// One readable line: direction, kind, id, task, outcome, reason, size and the internal
    /// error, those that are set: `in call p-1 Cart.add → forbidden (origin_not_allowed) 61 B`,
    /// `out reply p-2 Sync → task_failed 80 B [internal: DiskFull()]`. For `print` while
    /// developing; log ``TrafficRecord`` as JSON (`Codable`) where a program reads it.
    public var description: String {
        var line = "\(direction.rawValue) \(kind)"
        if let id { line += " \(id)" }
        if let task { line += " \(task)" }
        if let outcome { line += " → \(outcome)" }
        if let reason { line += " (\(reason))" }
        line += " \(bytes) B"
        if let internalError { line += " [internal: \(internalError)]" }
        return line
    }
}
