/// Resource limits of a router. Every limit has its own error code, and every queue BridgeKit
/// keeps is bounded by one of them.
public struct BridgeLimits: Sendable, Hashable {
    /// The largest message body accepted from a page, and the largest reply or progress message
    /// sent to it, in bytes of UTF-8 JSON. Default 16 MiB. Over it: `payload_too_large`.
    ///
    /// A message sent to the page is measured as native wrote its JSON, before it is framed for
    /// the page (``JavaScriptEmbedding``): integers beyond ±(2^53−1) are then quoted
    /// (2 bytes each, at most an eighth more) and characters escaped, so what the engine carries
    /// is at most 6 times the limit (`<` as `\u003c` in a script; 3 times in a reply handler's
    /// text, where only non-ASCII characters are escaped).
    public var maxPayloadBytes: Int
    /// The deepest nesting of arrays and objects accepted in a body (the envelope counts as one
    /// level). Default 64. Over it: `nesting_too_deep`.
    public var maxDepth: Int
    /// The most calls one page may have in flight at once, and the most fire-and-forget calls
    /// waiting their turn. Default 4096. Over it: `too_many_pending_calls` (a fire-and-forget
    /// call is dropped and logged with that outcome). Subframes' calls together take at most
    /// half of each (at least one), so the main frame always has the other half.
    public var maxPendingCalls: Int
    /// The most progress messages one call may send. Default 10,000. Over it the call settles
    /// with `progress_limit_exceeded` and its task is cancelled.
    public var maxProgressPerCall: Int
    /// The most native-to-page calls the page has not answered yet, at once. Default 1024. Over
    /// it: `too_many_pending_calls` (the protocol's code for both directions).
    public var maxUnansweredPageCalls: Int
    /// The most bytes the router holds for its page at once, counted as the UTF-8 bytes of the
    /// message bodies it keeps: pending calls (from admission until their work ends, which covers
    /// their decoded options), queued and running fire-and-forget calls, and final replies waiting
    /// for the engine. Default 64 MiB (four bodies of the default ``maxPayloadBytes``). A call that
    /// would take the router past it is refused with `memory_budget_exceeded`; a fire-and-forget
    /// call is dropped and logged with that outcome. Synchronous tasks, which hold their body only
    /// while ``BridgeRouter/receive(_:from:replyHandler:)`` runs, are not counted. Subframes'
    /// calls together hold at most half of it, so the main frame always has the other half.
    public var maxHeldBytes: Int
    /// How many answers the router gives at once to senders its own policy does not admit (a frame
    /// of an origin not listed, a subframe unless the policy allows them, a document without an
    /// origin), before it paces them at ``refusalsPerSecond``: its refusals, its acknowledgements
    /// (a `cancel`, the relay's `sync`) and its answers to messages that are not plain calls. A
    /// call that a task's own policy admits is answered by its task, unpaced. Default 64, at least
    /// 1. Shared by every such sender of the router's web view.
    ///
    /// Each answer still comes exactly once, in order; only when is paced. The relay lets a frame
    /// post as fast as the app answers, so answering a refused frame at once let one third-party
    /// iframe keep the app busy reading and refusing its posts (attack 20). A held answer keeps the
    /// frame's posts waiting in its own process. At most 1,024 answers are held; past that one is
    /// given at once. ``BridgeRouter/close()`` gives the held ones at once.
    public var refusalBurst = 64
    /// How many answers a second the router gives, past ``refusalBurst``, to senders its own
    /// policy does not admit. Default 100; 0 or less paces nothing (every answer at once, as
    /// before BridgeKit paced them).
    public var refusalsPerSecond = 100
    /// The most progress values and events the router has on their way to its page at once: taken
    /// before a value is encoded, given back once the engine evaluated its script. Default 16;
    /// 0 or less: no bound. Further senders wait their turn, in order, before their value is
    /// encoded, so however many Swift tasks send at once (a task's parallel workers, events
    /// emitted from many places) the router holds at most this many such messages
    /// (each at most ``maxPayloadBytes``). Places go to senders in the order they asked, and every
    /// value still goes once; ``BridgeRouter/close()`` lets the waiting ones go at once (they find
    /// no page, and `emit` throws `unavailable`). A sender whose Swift task is cancelled while it
    /// waits leaves its turn and throws `cancelled`, sending nothing.
    /// Final replies and native-to-page calls do not wait: ``maxPendingCalls`` and
    /// ``maxUnansweredPageCalls`` bound them.
    public var maxOutboundInFlight = 16

    /// Creates limits; every argument defaults to the value documented on its property.
    public init(
        maxPayloadBytes: Int = 16 * 1024 * 1024,
        maxDepth: Int = 64,
        maxPendingCalls: Int = 4096,
        maxProgressPerCall: Int = 10_000,
        maxUnansweredPageCalls: Int = 1024,
        maxHeldBytes: Int = 64 * 1024 * 1024
    ) {
        self.maxPayloadBytes = maxPayloadBytes
        self.maxDepth = maxDepth
        self.maxPendingCalls = maxPendingCalls
        self.maxProgressPerCall = maxProgressPerCall
        self.maxUnansweredPageCalls = maxUnansweredPageCalls
        self.maxHeldBytes = maxHeldBytes
    }

    /// The former name of ``maxUnansweredPageCalls``: "pending" now means only a page's call
    /// admitted and not yet settled (``maxPendingCalls``).
    @available(*, deprecated, renamed: "maxUnansweredPageCalls")
    public var maxPendingPageCalls: Int {
        get { maxUnansweredPageCalls }
        set { maxUnansweredPageCalls = newValue }
    }

    /// Creates limits with the former name of ``maxUnansweredPageCalls`` (see
    /// ``init(maxPayloadBytes:maxDepth:maxPendingCalls:maxProgressPerCall:maxUnansweredPageCalls:maxHeldBytes:)``).
    @available(
        *, deprecated,
        renamed:
            "init(maxPayloadBytes:maxDepth:maxPendingCalls:maxProgressPerCall:maxUnansweredPageCalls:maxHeldBytes:)"
    )
    public init(
        maxPayloadBytes: Int = 16 * 1024 * 1024,
        maxDepth: Int = 64,
        maxPendingCalls: Int = 4096,
        maxProgressPerCall: Int = 10_000,
        maxPendingPageCalls: Int,
        maxHeldBytes: Int = 64 * 1024 * 1024
    ) {
        self.init(
            maxPayloadBytes: maxPayloadBytes, maxDepth: maxDepth, maxPendingCalls: maxPendingCalls,
            maxProgressPerCall: maxProgressPerCall, maxUnansweredPageCalls: maxPendingPageCalls,
            maxHeldBytes: maxHeldBytes)
    }
}
