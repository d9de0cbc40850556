import Testing

@testable import BridgeKit

/// The one FIFO queue of the router's state machines and the WebKitGTK host's event lanes.
@Suite("Support: the FIFO queue")
struct FIFOQueueTests {
    @Test("items leave in the order they came, across compactions, and the count follows", arguments: [1, 4, 64])
    func order(threshold: Int) {
        var queue = FIFOQueue<Int>(compactionThreshold: threshold)
        var taken: [Int] = []
        var next = 0
        // Uneven rounds: more in than out, then drain, so every compaction path is taken.
        for round in 0..<50 {
            for _ in 0..<(round % 7 + 1) {
                queue.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) { if let item = queue.popFirst() { taken.append(item) } }
            #expect(queue.count == next - taken.count)
        }
        while let item = queue.popFirst() { taken.append(item) }
        #expect(taken == Array(0..<next))
        #expect(queue.isEmpty && queue.count == 0)
        let none = queue.popFirst()
        #expect(none == nil)
    }

    @Test("removeAll gives what is queued, front first, and leaves the queue empty")
    func removeAll() {
        var queue = FIFOQueue<String>()
        for item in ["a", "b", "c"] { queue.append(item) }
        let first = queue.popFirst()
        let rest = queue.removeAll()
        #expect(first == "a" && rest == ["b", "c"])
        #expect(queue.isEmpty)
        let nothing = queue.removeAll()
        #expect(nothing.isEmpty)
        queue.append("d")
        let again = queue.popFirst()
        #expect(again == "d")
    }
}
