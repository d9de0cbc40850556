/// A first-in, first-out queue on an array: `append` at the back, `removeFirst` from the front in
/// amortized constant time. The front is an index into the array; the taken prefix is dropped
/// once it is at least `compactionThreshold` items and half of the array, so a long-lived queue
/// does not keep what it gave out.
///
/// The one queue of the router's value-type state machines (``RefusalPacing``,
/// ``OutboundWindow``) and of the WebKitGTK host's event lanes. Not thread-safe: a value kept under
/// its owner's lock.
package struct FIFOQueue<Element> {
    private var items: [Element] = []
    private var head = 0
    /// How many taken items may stay in the array before they are dropped.
    private let compactionThreshold: Int

    /// Creates an empty queue.
    /// - Parameter compactionThreshold: how many taken items may stay in the array, at least, before
    ///   they are dropped (default 64).
    package init(compactionThreshold: Int = 64) {
        self.compactionThreshold = max(compactionThreshold, 1)
    }

    /// How many items are queued.
    package var count: Int { items.count - head }
    /// Whether no item is queued.
    package var isEmpty: Bool { head == items.count }

    /// Queues `item` at the back.
    package mutating func append(_ item: Element) {
        items.append(item)
    }

    /// Takes the front item; `nil` when the queue is empty.
    package mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= compactionThreshold, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Takes the first queued item that `matches` from wherever it is in the queue; the others
    /// keep their order. Linear in the queue's length: for the rare item that leaves before its
    /// turn (a sender whose Swift task was cancelled while it waited).
    /// - Returns: the item; `nil` when none matches.
    package mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let index = items[head...].firstIndex(where: matches) else { return nil }
        return items.remove(at: index)
    }

    /// Takes every item, front first, and leaves the queue empty (its storage freed).
    package mutating func removeAll() -> [Element] {
        defer {
            items = []
            head = 0
        }
        return Array(items[head...])
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
