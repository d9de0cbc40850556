import BridgeTestSupport
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// The transitions of ``DocumentWait`` with plain values (the router holds scripts and their
/// senders): which events open, hold and drain the queue, and what each returns.
@Suite("DocumentWait: transitions")
struct DocumentWaitStateMachineTests {
    typealias Wait = DocumentWait<Int>
    static let never: @Sendable (UInt64) async -> Void = { _ in }

    static func drained(_ wait: inout Wait, epoch: UInt64) -> [Int] {
        var sent: [Int] = []
        while let (held, _) = wait.next(epoch: epoch) { sent.append(held) }
        return sent
    }

    @Test("A script that cannot be bound joins a queue that holds scripts, so that it does not overtake them")
    func unbindableJoinsAHoldingQueue() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        #expect(!wait.mustHold(canBind: false), "nothing held: it goes")
        wait.hold(1, deadlinePassed: Self.never)
        #expect(wait.mustHold(canBind: false), "something held: it follows")
    }

    @Test("Until a notice named a document, nothing is held; after one, a commit holds until the next notice")
    func holdsOnlyWhenTheHostAnnounces() {
        var wait = Wait()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        #expect(wait.phase == .open && !wait.mustHold(canBind: true))
        #expect(wait.documentNamed().isNone)
        _ = wait.generationStarted(documentNamed: false, at: .now)
        #expect(wait.phase == .holding)
        #expect(wait.mustHold(canBind: true) && !wait.mustHold(canBind: false))
        _ = wait.generationStarted(documentNamed: true, at: .now)
        #expect(wait.phase == .open, "a notice of another document started it: named")
    }

    @Test("The notice drains the held scripts in order; scripts sent while it drains are not held; then open")
    func drainsInOrder() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        for n in 0..<3 { wait.hold(n, deadlinePassed: Self.never) }
        #expect(wait.count == 3)
        guard case .drain(let epoch) = wait.documentNamed() else {
            Issue.record("the notice drains")
            return
        }
        #expect(wait.phase == .draining && !wait.mustHold(canBind: true), "while draining, new scripts go at once")
        #expect(wait.next(epoch: epoch)?.0 == 0)
        #expect(Self.drained(&wait, epoch: epoch) == [1, 2])
        #expect(wait.phase == .open && wait.count == 0)
        #expect(wait.documentNamed().isNone, "a second notice of the same document")
    }

    @Test("A notice with nothing held opens the queue and starts no flusher")
    func emptyNotice() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        #expect(wait.documentNamed().isNone)
        #expect(wait.phase == .open)
    }

    @Test("A new generation lets go of the old one's scripts and stops its flusher")
    func newGenerationLetsGo() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        for n in 0..<4 { wait.hold(n, deadlinePassed: Self.never) }
        guard case .drain(let old) = wait.documentNamed() else {
            Issue.record("the notice drains")
            return
        }
        #expect(wait.next(epoch: old)?.0 == 0)
        let letGo = wait.generationStarted(documentNamed: false, at: .now)
        #expect(letGo == [1, 2, 3])
        #expect(wait.next(epoch: old) == nil, "the old flusher stops")
        #expect(wait.phase == .holding && wait.count == 0)
    }

    @Test("The deadline drains the generation's scripts once; a later generation's deadline is another")
    func deadline() async {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        let stale = wait.epoch
        _ = wait.generationStarted(documentNamed: false, at: .now)
        wait.hold(7, deadlinePassed: Self.never)
        #expect(wait.deadlinePassed(epoch: stale).isNone, "an earlier generation's timer")
        guard case .drain(let epoch) = wait.deadlinePassed(epoch: wait.epoch) else {
            Issue.record("the deadline drains")
            return
        }
        #expect(Self.drained(&wait, epoch: epoch) == [7])
        #expect(!wait.mustHold(canBind: true), "the generation holds nothing after its deadline")
        #expect(wait.deadlinePassed(epoch: epoch).isNone)
    }

    @Test("One timer per generation, started with its first held script, due at the commit's deadline")
    func timerFromCommit() async {
        var wait = Wait()
        _ = wait.documentNamed()
        let commit = ContinuousClock.now - wait.limit
        _ = wait.generationStarted(documentNamed: false, at: commit)
        #expect(wait.deadline == commit + wait.limit)
        let fired = Mutex<[UInt64]>([])
        wait.hold(1) { epoch in fired.withLock { $0.append(epoch) } }
        wait.hold(2) { epoch in fired.withLock { $0.append(epoch + 100) } }
        #expect(wait.deadline == commit + wait.limit, "holding does not move the deadline")
        let epoch = wait.epoch
        #expect(await eventually { !fired.withLock { $0 }.isEmpty }, "already due")
        // A second timer (one per script) would fire as soon; give it the chance to show itself.
        try? await Task.sleep(for: .milliseconds(50))
        #expect(fired.withLock { $0 } == [epoch], "one timer per generation")
    }

    @Test("Closing drains what is held, with the channel that was connected; the queue then stays open")
    func close() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        wait.hold(1, deadlinePassed: Self.never)
        let channel = PageChannel(evaluate: { _ in })
        guard case .drain(let epoch) = wait.closed(channel: channel) else {
            Issue.record("closing drains")
            return
        }
        let next = wait.next(epoch: epoch)
        #expect(next?.0 == 1 && next?.1 != nil)
        #expect(wait.next(epoch: epoch) == nil && wait.phase == .open)
    }

    @Test("A long drain compacts its queue and keeps the order")
    func longDrain() {
        var wait = Wait()
        _ = wait.documentNamed()
        _ = wait.generationStarted(documentNamed: false, at: .now)
        for n in 0..<100 { wait.hold(n, deadlinePassed: Self.never) }
        guard case .drain(let epoch) = wait.documentNamed() else {
            Issue.record("the notice drains")
            return
        }
        var sent: [Int] = []
        for n in 100..<300 {
            if let (held, _) = wait.next(epoch: epoch) { sent.append(held) }
            wait.hold(n, deadlinePassed: Self.never)
        }
        sent += Self.drained(&wait, epoch: epoch)
        #expect(sent == Array(0..<300))
    }
}

extension DocumentWait.Action {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
