import Testing

@testable import BridgeKit

/// The flow control of outbound bodies, event by event (``DeliveryWindow``).
@Suite("Delivery window")
struct DeliveryWindowTests {
    typealias Actions = DeliveryWindow.Actions

    @Test("chunks within the budget are admitted at once; a barrier is issued at half the budget")
    func admitsWithinBudget() {
        var window = DeliveryWindow(budget: 100)
        #expect(window.request(id: 1, bytes: 30) == Actions(admitted: [1]))
        #expect(window.request(id: 2, bytes: 30) == Actions(admitted: [2], issuesBarrier: true))
        #expect(window.request(id: 3, bytes: 30) == Actions(admitted: [3]), "one barrier in flight at a time")
        #expect(window.unconfirmedBytes == 90)
    }

    @Test("a chunk that does not fit waits until a barrier confirms what was handed before it")
    func waitsForBarrier() {
        var window = DeliveryWindow(budget: 100)
        _ = window.request(id: 1, bytes: 60)  // issues the barrier (60 ≥ 50)
        #expect(window.request(id: 2, bytes: 60) == Actions())
        #expect(window.barrierReturned() == Actions(admitted: [2], issuesBarrier: true))
        #expect(window.unconfirmedBytes == 60)
        #expect(window.barrierReturned() == Actions())
        #expect(window.isIdle)
    }

    @Test("a waiting chunk makes a barrier due even below half the budget")
    func waitingIssuesBarrier() {
        var window = DeliveryWindow(budget: 100)
        #expect(window.request(id: 1, bytes: 40) == Actions(admitted: [1]))
        #expect(window.request(id: 2, bytes: 70) == Actions(issuesBarrier: true))
        #expect(window.barrierReturned() == Actions(admitted: [2], issuesBarrier: true))
    }

    @Test("bytes handed while a barrier travels stay unconfirmed after it returns")
    func barrierConfirmsOnlyWhatPrecededIt() {
        var window = DeliveryWindow(budget: 100)
        _ = window.request(id: 1, bytes: 50)  // barrier at 50
        _ = window.request(id: 2, bytes: 40)
        #expect(window.barrierReturned() == Actions())
        #expect(window.unconfirmedBytes == 40)
        #expect(!window.isIdle)
    }

    @Test("a chunk larger than the budget moves alone once nothing is unconfirmed")
    func oversizedChunkMovesAlone() {
        var window = DeliveryWindow(budget: 100)
        #expect(window.request(id: 1, bytes: 10) == Actions(admitted: [1]))
        #expect(window.request(id: 2, bytes: 500) == Actions(issuesBarrier: true))
        #expect(window.barrierReturned() == Actions(admitted: [2], issuesBarrier: true))
        var fresh = DeliveryWindow(budget: 100)
        #expect(fresh.request(id: 3, bytes: 500) == Actions(admitted: [3], issuesBarrier: true))
    }

    @Test("waiting chunks are admitted first come first, and a small one does not overtake a large one")
    func firstComeFirst() {
        var window = DeliveryWindow(budget: 100)
        _ = window.request(id: 1, bytes: 90)
        #expect(window.request(id: 2, bytes: 80) == Actions())
        #expect(window.request(id: 3, bytes: 5) == Actions(), "room for 5 bytes, but 2 asked first")
        #expect(window.barrierReturned() == Actions(admitted: [2, 3], issuesBarrier: true))
    }

    @Test("a withdrawn request no longer blocks the ones behind it")
    func withdraw() {
        var window = DeliveryWindow(budget: 100)
        _ = window.request(id: 1, bytes: 90)
        _ = window.request(id: 2, bytes: 80)
        _ = window.request(id: 3, bytes: 5)
        #expect(window.withdraw(id: 2) == Actions(admitted: [3]))
        #expect(window.withdraw(id: 42) == Actions(), "an unknown id changes nothing")
    }

    @Test("an overdue barrier admits one more budget per call and stays in flight; its answer resumes the usual flow")
    func overdueBarrier() {
        var window = DeliveryWindow(budget: 100)
        #expect(window.barrierOverdue() == Actions(), "no barrier in flight: nothing")
        _ = window.request(id: 1, bytes: 60)  // barrier issued
        _ = window.request(id: 2, bytes: 60)
        _ = window.request(id: 3, bytes: 60)
        #expect(window.barrierOverdue() == Actions(admitted: [2]), "one budget: 60 fits, 120 does not")
        #expect(window.isBarrierInFlight)
        #expect(window.barrierOverdue() == Actions(admitted: [3]))
        #expect(window.unconfirmedBytes == 60, "3's bytes, handed after the last grant")
        #expect(window.barrierReturned() == Actions(issuesBarrier: true), "60 unconfirmed: the next barrier is due")
        #expect(window.request(id: 4, bytes: 60) == Actions(), "120 would exceed the budget")
        #expect(window.barrierReturned() == Actions(admitted: [4], issuesBarrier: true))
    }

    @Test("a barrier answer with none in flight changes nothing")
    func strayBarrier() {
        var window = DeliveryWindow(budget: 100)
        #expect(window.barrierReturned() == Actions())
        _ = window.request(id: 1, bytes: 10)
        #expect(window.barrierReturned() == Actions())
        #expect(window.unconfirmedBytes == 10)
    }

    @Test(
        "however the events come (overdue barriers too), unconfirmed bytes stay within the budget plus one chunk, and every request is admitted once"
    )
    func randomTraffic() {
        var generator = SplitMix64(seed: 26)
        for _ in 0..<200 {
            var window = DeliveryWindow(budget: 64)
            var barrierInFlight = false
            var admitted: [Int] = []
            var asked = 0
            var largest = 0
            for step in 0..<300 {
                let actions: Actions
                if generator.next() % 3 != 0 {
                    let bytes = Int(generator.next() % 40)
                    largest = max(largest, bytes)
                    actions = window.request(id: step, bytes: bytes)
                    asked += 1
                } else if barrierInFlight, generator.next() % 4 == 0 {
                    actions = window.barrierOverdue()
                    #expect(!actions.issuesBarrier, "an overdue barrier stays the one in flight")
                } else if barrierInFlight {
                    actions = window.barrierReturned()
                    barrierInFlight = false
                } else {
                    continue
                }
                admitted += actions.admitted
                if actions.issuesBarrier {
                    #expect(!barrierInFlight)
                    barrierInFlight = true
                }
                #expect(window.unconfirmedBytes <= Int64(64 + largest))
            }
            while barrierInFlight {
                let actions = window.barrierReturned()
                admitted += actions.admitted
                barrierInFlight = actions.issuesBarrier
            }
            #expect(admitted.count == asked, "every request was admitted once all barriers returned")
            #expect(Set(admitted).count == admitted.count)
            #expect(window.isIdle || window.unconfirmedBytes > 0)
        }
    }
}
