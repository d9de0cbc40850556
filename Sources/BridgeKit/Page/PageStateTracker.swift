/// Folds a web view's ``PageEvent``s into its current ``PageState`` and hands the events to any
/// number of `AsyncStream` subscribers, each with a bounded buffer.
///
/// ```swift
/// let (state, events) = bridge.pageState.subscribe()
/// render(state)
/// for await event in events {
///     if case .progressChanged(let value) = event { progressView.progress = Float(value) }
///     render(bridge.pageState.state)          // the state is the truth; events are hints
/// }
/// ```
///
/// - Events that change nothing (see ``PageState/apply(_:)``) are not passed on; progress values
///   are passed on clamped.
/// - Each subscriber keeps at most ``bufferLimit`` unread events, dropping the **oldest**
///   (`AsyncStream` `.bufferingNewest`), so a slow reader costs bounded memory; it can always
///   read ``state`` for the whole picture.
/// - After ``finish()`` every stream ends, later events are ignored and new subscriptions end at
///   once.
///
/// Thread safety: `Sendable`; every method may be called from any thread. Events from one
/// thread reach subscribers in the order they were sent.
public final class PageStateTracker: Sendable {
    /// The default of ``bufferLimit``.
    public static let defaultBufferLimit = 64

    private struct Storage {
        var state = PageState()
        var subscribers: [Int: AsyncStream<PageEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var isFinished = false
    }

    /// How many unread events each subscriber keeps, at least 1.
    public let bufferLimit: Int
    private let storage = Locked(Storage())

    /// Creates a tracker of a page where nothing happened yet.
    /// - Parameter bufferLimit: unread events kept per subscriber; values below 1 count as 1.
    public init(bufferLimit: Int = PageStateTracker.defaultBufferLimit) {
        self.bufferLimit = max(bufferLimit, 1)
    }

    /// The current state.
    public var state: PageState {
        storage.withLock { $0.state }
    }

    /// Whether ``finish()`` was called.
    public var isFinished: Bool {
        storage.withLock { $0.isFinished }
    }

    /// Folds `event` into the state and passes it to every subscriber when it changed something.
    /// - Returns: the event as applied, or `nil` when it changed nothing or the tracker is
    ///   finished.
    @discardableResult
    public func send(_ event: PageEvent) -> PageEvent? {
        storage.withLock { storage in
            guard !storage.isFinished, let applied = storage.state.apply(event) else { return nil }
            // Yielding under the lock keeps the order across threads; `yield` never calls back
            // into this tracker (only `finish()` and cancellation run `onTermination`).
            // A stream that ended before its `onTermination` was installed is dropped here.
            for (id, continuation) in storage.subscribers {
                if case .terminated = continuation.yield(applied) {
                    storage.subscribers[id] = nil
                }
            }
            return applied
        }
    }

    /// A new stream of the events sent from now on. Ends with ``finish()`` or when the consumer
    /// stops iterating (the subscription is then removed).
    public func events() -> AsyncStream<PageEvent> {
        subscribe().events
    }

    /// The current state and a stream of the events after it, taken atomically: no event falls
    /// between the two.
    public func subscribe() -> (state: PageState, events: AsyncStream<PageEvent>) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PageEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let (state, id): (PageState, Int?) = storage.withLock { storage in
            guard !storage.isFinished else { return (storage.state, nil) }
            let id = storage.nextSubscriber
            storage.nextSubscriber += 1
            storage.subscribers[id] = continuation
            return (storage.state, id)
        }
        guard let id else {
            continuation.finish()
            return (state, stream)
        }
        continuation.onTermination = { [weak self] _ in
            self?.removeSubscriber(id)
        }
        return (state, stream)
    }

    /// How many streams are subscribed (for tests and diagnostics).
    public var subscriberCount: Int {
        storage.withLock { $0.subscribers.count }
    }

    /// Ends every stream; later events are ignored. Idempotent.
    public func finish() {
        let continuations = storage.withLock { storage in
            storage.isFinished = true
            let taken = Array(storage.subscribers.values)
            storage.subscribers.removeAll()
            return taken
        }
        // Outside the lock: `finish()` runs `onTermination`, which takes the lock.
        for continuation in continuations {
            continuation.finish()
        }
    }

    private func removeSubscriber(_ id: Int) {
        storage.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    deinit {
        finish()
    }
}
