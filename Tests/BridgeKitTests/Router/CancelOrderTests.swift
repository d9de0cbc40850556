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
        #expect(waits == nil)
        let released = order.delivered(7)
        #expect(released.isEmpty)
    }

    @Test("a script waits for the cancels numbered before it, not for later ones")
    func waitsOnlyForEarlierCancels() {
        var order = CancelOrder<String>()
        let first = order.begin(generation: 1)
        #expect(order.barrier(generation: 1) == first)
        let eventWaits = order.wait(upTo: first, generation: 1, "event")
        #expect(eventWaits != nil)
        let second = order.begin(generation: 1)
        #expect(order.barrier(generation: 1) == second)
        let replyWaits = order.wait(upTo: second, generation: 1, "reply")
        #expect(replyWaits != nil)
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
        #expect(waits != nil)
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
        #expect(oldWaits != nil)
        let leftOld = order.generationStarted(2)
        #expect(leftOld == ["old event"])
        let current = order.begin(generation: 2)
        let newWaits = order.wait(upTo: current, generation: 2, "new event")
        #expect(newWaits != nil)
        let afterOld = order.delivered(old)
        #expect(afterOld.isEmpty, "the old cancel ends without touching generation 2")
        let atClose = order.closed()
        #expect(atClose == ["new event"])
        #expect(order.count == 1, "the cancel is still in the engine; its end is accepted later")
        let afterClose = order.delivered(current)
        #expect(afterClose.isEmpty)
    }

    @Test("a waiter whose wait expired is released once, and a later release skips it")
    func expiry() {
        var order = CancelOrder<String>()
        let hung = order.begin(generation: 1)
        let ticket = order.wait(upTo: hung, generation: 1, "event")
        #expect(ticket != nil)
        let expired = ticket.flatMap { order.expired($0) }
        #expect(expired == "event")
        let again = ticket.flatMap { order.expired($0) }
        #expect(again == nil)
        let afterHung = order.delivered(hung)
        #expect(afterHung.isEmpty)
    }

    @Test("a script whose call ended stops waiting; other scripts keep waiting")
    func ownerEnded() {
        var order = CancelOrder<String>()
        let hung = order.begin(generation: 1)
        let call = order.wait(upTo: hung, generation: 1, owner: .pageCall("n-2-abcdef"), "call script")
        let event = order.wait(upTo: hung, generation: 1, "event")
        #expect(call != nil && event != nil)
        let ended = order.ended(.pageCall("n-2-abcdef"))
        #expect(ended == ["call script"])
        #expect(order.waiting == 1)
        let afterHung = order.delivered(hung)
        #expect(afterHung == ["event"])
    }
}
