#if WebKitGTK
import BridgeKit

extension GTKEventQueue {
    /// Queued items of several senders (web views), taken in turns: one of each sender's in a
    /// round, each sender's in the order they came. A value; ``GTKEventQueue`` keeps it under its
    /// lock.
    ///
    /// Why turns: every view's events reach the main actor through one queue, and a page that
    /// posts without waiting could fill it (up to its view's inbound budget, 8,192 messages) ahead
    /// of another view's message, which then waited for all of them (attack 18's floods: another
    /// view's calls took hundreds of milliseconds). Taken in turns, and at most
    /// ``GTKEventQueue/maxEventsPerTurn`` per main-actor job, the other view's message waits for at
    /// most one event of each view ahead of it.
    struct Turns<Sender: Hashable, Item> {
        /// Each sender's items, oldest first.
        private var lanes: [Sender: FIFOQueue<Item>] = [:]
        /// The senders with items, in the order of their turns; `next` is whose turn it is.
        private var order: [Sender] = []
        private var next = 0
        /// How many items are queued.
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }

        /// Queues `item` of `sender`, after that sender's earlier ones.
        mutating func append(_ item: Item, of sender: Sender) {
            if lanes[sender] == nil {
                // A sender coming back takes its turn after every sender already waiting.
                order.insert(sender, at: next)
                next += 1
            }
            lanes[sender, default: FIFOQueue(compactionThreshold: 1024)].append(item)
            count += 1
        }

        /// Removes and returns at most `limit` items, one per sender in turn.
        mutating func take(upTo limit: Int) -> [Item] {
            var taken: [Item] = []
            taken.reserveCapacity(min(limit, count))
            while taken.count < limit, !order.isEmpty {
                if next >= order.count { next = 0 }
                let sender = order[next]
                guard var lane = lanes.removeValue(forKey: sender), let item = lane.popFirst() else {
                    order.remove(at: next)
                    continue
                }
                taken.append(item)
                if lane.isEmpty {
                    order.remove(at: next)
                } else {
                    lanes[sender] = lane
                    next += 1
                }
            }
            count -= taken.count
            return taken
        }
    }
}
#endif
