#if WebKitGTK
@testable import BridgeKitGTK
import Testing

/// The main-actor queue's turns (``GTKEventQueue/Turns``): each view's events in order, the
/// views in turns, so a flooding view holds up another by one event per turn (attack 18's floods).
@Suite("Event queue: views in turns")
struct EventTurnsTests {
    typealias Turns = GTKEventQueue.Turns<String, String>

    @Test(
        "one of each sender's in a round, each sender's in order; a new sender waits one round at most",
        .timeLimit(.minutes(1)))
    func rounds() {
        var turns = Turns()
        for index in 1...5 { turns.append("A\(index)", of: "A") }
        turns.append("B1", of: "B")
        turns.append("B2", of: "B")
        #expect(turns.count == 7)
        #expect(turns.take(upTo: 3) == ["A1", "B1", "A2"])
        turns.append("C1", of: "C")
        #expect(turns.take(upTo: 100) == ["B2", "A3", "C1", "A4", "A5"])
        #expect(turns.isEmpty && turns.count == 0)
        #expect(turns.take(upTo: 10).isEmpty)
        turns.append("A6", of: "A")
        #expect(turns.take(upTo: 10) == ["A6"], "a sender that ran empty comes back")
    }

    @Test(
        "behind 8,192 events of a flooding view, another view's event is among the first two taken",
        .timeLimit(.minutes(1)))
    func flood() {
        var turns = Turns()
        for index in 0..<8192 { turns.append("A\(index)", of: "A") }
        turns.append("B", of: "B")
        let first = turns.take(upTo: GTKEventQueue.maxEventsPerTurn)
        #expect(first.count == GTKEventQueue.maxEventsPerTurn)
        #expect(first.prefix(2).contains("B"))
        var rest: [String] = []
        while !turns.isEmpty { rest += turns.take(upTo: 1000) }
        #expect(first.filter { $0 != "B" } + rest == (0..<8192).map { "A\($0)" }, "the flooding view's events in order")
    }
}
#endif
