import BridgeKit
import Testing

/// The per-view registry of gates the Apple scheme handlers share (``DeliveryGates``).
@MainActor
@Suite("Delivery gates")
struct DeliveryGatesTests {
    final class View {}

    @Test("a view's handlers share one gate while it has tasks; the last task's end drops it")
    func sharedWhileOpen() {
        let gates = DeliveryGates()
        let view = View()
        let other = View()
        var made = 0
        let maker: () -> @MainActor () async -> Void = {
            made += 1
            return {}
        }
        let first = gates.open(for: ObjectIdentifier(view), budget: 8, barrier: maker)
        let second = gates.open(for: ObjectIdentifier(view), budget: 8, barrier: maker)
        let third = gates.open(for: ObjectIdentifier(other), budget: 8, barrier: maker)
        #expect(first === second)
        #expect(first !== third)
        #expect(made == 2)
        gates.close(for: ObjectIdentifier(view))
        #expect(gates.count == 2, "one task of the view is still open")
        gates.close(for: ObjectIdentifier(view))
        gates.close(for: ObjectIdentifier(view))
        #expect(gates.count == 1)
        #expect(gates.open(for: ObjectIdentifier(view), budget: 8, barrier: maker) !== first, "a new gate later")
    }

    @Test("a gate admits what fits at once and the rest once its barrier returns", .timeLimit(.minutes(1)))
    func gateAdmits() async {
        let barriers = HeldBarriers()
        let gate = DeliveryGate(budget: 10, stallInterval: .seconds(3600)) { await barriers.wait() }
        await gate.admit(6)
        await barriers.arrival()  // 6 of 10 unconfirmed: a barrier is due
        var admitted = false
        let late = Task { @MainActor in
            await gate.admit(6)
            admitted = true
        }
        await HeldBarriers.until { gate.waitingCount == 1 }
        #expect(!admitted, "6 + 6 exceeds the budget of 10")
        barriers.answerAll()
        await late.value
        #expect(admitted)
        #expect(gate.unconfirmedBytes == 6)
    }

    @Test(
        "a barrier the web process never answers (a synchronous request) still lets a budget through per stall interval",
        .timeLimit(.minutes(1)))
    func stalledBarrier() async {
        let barriers = HeldBarriers()
        let gate = DeliveryGate(budget: 10, stallInterval: .milliseconds(20)) { await barriers.wait() }
        for _ in 0..<5 { await gate.admit(6) }  // 30 bytes through a budget of 10, no answer
        #expect(barriers.count == 1, "one barrier, never answered")
        barriers.answerAll()
    }
}
