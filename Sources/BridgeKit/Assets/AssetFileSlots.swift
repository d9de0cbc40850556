/// How many of one web view's asset requests may have their file open at once, and who waits for
/// a slot: a value-type state machine whose events return the starts to run, shared by the Apple
/// driver (``AssetSchemeDriver``) and the WebKitGTK handler.
///
/// A page can start thousands of `fetch`es of the app's files at once. Each open request holds a
/// descriptor of its file (and, streamed on WebKitGTK, two of a socket pair) and a chunk, so
/// without a cap 400 fetches exhausted the app's descriptors and crashed it (attack 17). With it, a
/// request waits, first come first, before its file is opened, as over an HTTP/1.1 connection
/// pool.
///
/// Rules:
/// - A request takes a slot at once while fewer than ``limit`` are taken; otherwise it waits.
/// - A released slot goes to the request that waited longest; only when none waits is it freed.
///
/// Not thread-safe: an adapter keeps it where it is confined (behind a lock, or on one actor).
package struct AssetFileSlots<Start> {
    /// How many of a view's requests may have their file open at once by default: 32.
    package static var defaultLimit: Int { 32 }

    /// How many requests may hold a slot at once (at least 1).
    package let limit: Int
    /// How many requests hold a slot.
    package private(set) var taken = 0
    /// The starts of the requests waiting for a slot, first come first.
    private var waiting: [Start] = []
    /// Index of the first waiting start in ``waiting`` (the queue is popped by moving it, and
    /// compacted when it passes half).
    private var head = 0

    /// Creates the slots of one view.
    /// - Parameter limit: how many requests may hold a slot at once; default ``defaultLimit``,
    ///   at least 1.
    package init(limit: Int = Self.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// How many requests wait for a slot.
    package var waitingCount: Int { waiting.count - head }

    /// A request asks for a slot.
    /// - Parameter start: what runs the request once it has one.
    /// - Returns: `start` when the request takes a slot now (run it, outside any lock); nil when it
    ///   waits (a later ``release()`` returns it).
    package mutating func acquire(_ start: Start) -> Start? {
        guard taken < limit else {
            waiting.append(start)
            return nil
        }
        taken += 1
        return start
    }

    /// A request holding a slot ended (answered, failed, or stopped by the engine).
    /// - Returns: the start of the request that takes the slot now (run it, outside any lock), or
    ///   nil when none waits and the slot is freed.
    package mutating func release() -> Start? {
        guard head < waiting.count else {
            taken = max(0, taken - 1)
            return nil
        }
        let next = waiting[head]
        head += 1
        if head * 2 >= waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return next
    }
}

extension AssetFileSlots: Sendable where Start: Sendable {}
