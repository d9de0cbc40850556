import Testing

@testable import BridgeKit

/// ``CancelOrder``'s transitions with plain values as waiters.
@Suite("Router: the order of native-to-page cancels (state machine)")
struct CancelOrderTests {
    @Test("no cancel in flight: nothing to wait for")
    func empty() {
        var order = CancelOrder<String>()
        #expect(order.barrier(generation: 1) == nil)
        let waits = order.wait(upTo: 1, generation: 1, "a")
        #expect(!waits)
        let released = order.delivered(7)
        #expect(released.isEmpty)
    }

    @Test("a script waits for the cancels numbered before it, not for later ones")
    func waitsOnlyForEarlierCancels() {
        var order = CancelOrder<String>()
        let first = order.begin(generation: 1)
        #expect(order.barrier(generation: 1) == first)
        let eventWaits = order.wait(upTo: first, generation: 1, "event")
        #expect(eventWaits)
        let second = order.begin(generation: 1)
        #expect(order.barrier(generation: 1) == second)
        let replyWaits = order.wait(upTo: second, generation: 1, "reply")
        #expect(replyWaits)
        // The first cancel evaluated: the event owes nothing to the second.
        let afterFirst = order.delivered(first)
        #expect(afterFirst == ["event"])
        #expect(order.waiting == 1)
        let afterSecond = order.delivered(second)
        #expect(afterSecond == ["reply"])
        #expect(order.count == 0 && order.waiting == 0)
    }

    @Test("cancels out of order: a waiter goes once every cancel up to its number was evaluated")
    func outOfOrder() {
        var order = CancelOrder<String>()
        let first = order.begin(generation: 1)
        let second = order.begin(generation: 1)
        let waits = order.wait(upTo: second, generation: 1, "event")
        #expect(waits)
        let afterSecond = order.delivered(second)
        #expect(afterSecond.isEmpty, "the first is still in flight")
        let afterFirst = order.delivered(first)
        #expect(afterFirst == ["event"])
        let again = order.delivered(first)
        #expect(again.isEmpty, "a number ends once")
    }

    @Test("a cancel holds only its own generation; a new generation and close release the waiters")
    func generations() {
        var order = CancelOrder<String>()
        let old = order.begin(generation: 1)
        #expect(order.barrier(generation: 2) == nil, "a later document does not wait for a cancel of one gone")
        let oldWaits = order.wait(upTo: old, generation: 1, "old event")
        #expect(oldWaits)
        let leftOld = order.generationStarted(2)
        #expect(leftOld == ["old event"])
        let current = order.begin(generation: 2)
        let newWaits = order.wait(upTo: current, generation: 2, "new event")
        #expect(newWaits)
        let afterOld = order.delivered(old)
        #expect(afterOld.isEmpty, "the old cancel ends without touching generation 2")
        let atClose = order.closed()
        #expect(atClose == ["new event"])
        #expect(order.count == 1, "the cancel is still in the engine; its end is accepted later")
        let afterClose = order.delivered(current)
        #expect(afterClose.isEmpty)
    }
}
