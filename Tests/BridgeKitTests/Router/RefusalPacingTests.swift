import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// The answers to senders the router's policy does not admit are paced (``RefusalPacing``): a refused frame posting
/// without pause kept the app reading and refusing its posts as fast as it answered them (attack
/// 20: one third-party iframe took about 1.3 of 2 cores). Every answer still comes exactly once,
/// in order.
@Suite("Router: answers to refused senders are paced")
struct RefusalPacingTests {
    // MARK: The value type's transitions

    @Test("the bucket answers its burst at once, then holds answers and releases one per token, in order")
    func transitions() throws {
        var pacing = RefusalPacing<Int>(burst: 2, perSecond: 10)
        let start = ContinuousClock.now
        #expect(pacing.arrive(1, now: start) == .answer)
        #expect(pacing.arrive(2, now: start) == .answer)
        #expect(pacing.arrive(3, now: start) == .startDrain)
        #expect(pacing.arrive(4, now: start) == .held)
        #expect(pacing.heldCount == 2)
        guard case .wait(let wait) = pacing.next(now: start) else {
            Issue.record("expected a wait")
            return
        }
        #expect(abs((wait - .milliseconds(100)) / .milliseconds(1)) < 1)
        // A token came back, but 3 is held: a new answer waits behind it.
        #expect(pacing.arrive(5, now: start + .milliseconds(100)) == .held)
        #expect(pacing.next(now: start + .milliseconds(100)) == .answer(3))
        #expect(pacing.next(now: start + .milliseconds(150)) == .wait(.milliseconds(50)))
        #expect(pacing.next(now: start + .milliseconds(200)) == .answer(4))
        #expect(pacing.next(now: start + .milliseconds(300)) == .answer(5))
        #expect(pacing.next(now: start + .milliseconds(300)) == .done)
        #expect(!pacing.isDraining)
        // Idle for long: the bucket refills to its burst, no further.
        let later = start + .seconds(60)
        #expect(pacing.arrive(6, now: later) == .answer)
        #expect(pacing.arrive(7, now: later) == .answer)
        #expect(pacing.arrive(8, now: later) == .startDrain)
    }

    @Test("a clock read out of order never adds tokens twice")
    func clockOutOfOrder() {
        var pacing = RefusalPacing<Int>(burst: 1, perSecond: 10)
        let start = ContinuousClock.now
        #expect(pacing.arrive(1, now: start + .milliseconds(100)) == .answer)
        // An earlier instant (another thread read the clock first) adds nothing.
        #expect(pacing.arrive(2, now: start) == .startDrain)
        #expect(pacing.next(now: start + .milliseconds(150)) == .wait(.milliseconds(50)))
    }

    @Test("past 1,024 held answers an answer is given at once; takeAll gives the held ones in order")
    func heldBound() {
        var pacing = RefusalPacing<Int>(burst: 1, perSecond: 1)
        let now = ContinuousClock.now
        #expect(pacing.arrive(0, now: now) == .answer)
        for value in 1...RefusalPacing<Int>.maxHeld { _ = pacing.arrive(value, now: now) }
        #expect(pacing.heldCount == RefusalPacing<Int>.maxHeld)
        #expect(pacing.arrive(-1, now: now) == .answer)
        #expect(pacing.takeAll() == Array(1...RefusalPacing<Int>.maxHeld))
        #expect(pacing.next(now: now) == .done)
    }

    @Test("a rate of 0 paces nothing; a burst of 0 counts as 1")
    func settings() {
        var off = RefusalPacing<Int>(burst: 0, perSecond: 0)
        var zeroBurst = RefusalPacing<Int>(burst: 0, perSecond: 5)
        let now = ContinuousClock.now
        for value in 0..<100 { #expect(off.arrive(value, now: now) == .answer) }
        #expect(zeroBurst.arrive(1, now: now) == .answer)
        #expect(zeroBurst.arrive(2, now: now) == .startDrain)
    }

    // MARK: The router

    static let refused = MessageSource.subframe("https://ads.example")

    /// The answers a reply handler got, in the order given.
    final class Answers: Sendable {
        private let list = Mutex<[(index: Int, json: String?)]>([])
        func add(_ index: Int, _ json: String?) { list.withLock { $0.append((index, json)) } }
        var count: Int { list.withLock { $0.count } }
        var order: [Int] { list.withLock { $0.map(\.index) } }
        var jsons: [String?] { list.withLock { $0.map(\.json) } }

        /// Waits (up to 20 s) until `count` answers came.
        func wait(for count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while self.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    /// Routes `bodies` from `source` through `router`, each with a reply handler.
    static func route(_ bodies: [String], from source: MessageSource, on router: BridgeRouter) -> Answers {
        let answers = Answers()
        for (index, body) in bodies.enumerated() {
            router.receive(
                .string(body), from: source,
                replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.add(index, json) })
        }
        return answers
    }

    /// The most tokens a bucket of `perSecond` can have refilled since `start` (one more for the
    /// token under way).
    static func refilled(since start: ContinuousClock.Instant, perSecond: Int) -> Int {
        let elapsed = start.duration(to: .now)
        return Int(
            Double(elapsed.components.seconds) * Double(perSecond) + Double(elapsed.components.attoseconds) * 1e-18
                * Double(perSecond)) + 1
    }

    static func calls(_ count: Int) -> [String] {
        (0..<count).map { #"{"v":1,"kind":"call","id":"c\#($0)","task":"echo","options":null}"# }
    }

    static func limits(burst: Int, perSecond: Int) -> BridgeLimits {
        var limits = BridgeLimits()
        limits.refusalBurst = burst
        limits.refusalsPerSecond = perSecond
        return limits
    }

    @Test("a refused frame's calls past the burst are answered forbidden at the rate, each once, in order")
    func refusedCallsArePaced() async throws {
        let router = try makeRouter([echoTask], limits: Self.limits(burst: 8, perSecond: 200))
        let start = ContinuousClock.now
        let answers = Self.route(Self.calls(60), from: Self.refused, on: router)
        // The burst at once, and what the bucket refilled while they were routed (a sanitizer
        // build took more than 10 ms for the 60).
        #expect(answers.count >= 8 && answers.count <= 8 + Self.refilled(since: start, perSecond: 200))
        try await answers.wait(for: 60)
        let elapsed = start.duration(to: .now)
        #expect(answers.order == Array(0..<60), "every call answered once, in order")
        #expect(answers.jsons.allSatisfy { $0?.contains(#""code":"forbidden""#) == true })
        // 52 answers at 200 a second: 0.26 s at the least.
        #expect(elapsed >= .milliseconds(230), "took \(elapsed)")
        await router.close()
    }

    @Test("every kind of message from a refused sender waits its turn: bad JSON, a cancel, a sync")
    func everyKindIsPaced() async throws {
        let router = try makeRouter([echoTask], limits: Self.limits(burst: 2, perSecond: 50))
        let bodies =
            Self.calls(2) + [
                "not json", #"{"v":1,"kind":"cancel","id":"c0"}"#, #"{"v":1,"kind":"sync"}"#,
                #"{"v":1,"kind":"nope","id":"x"}"#,
            ]
        let start = ContinuousClock.now
        let answers = Self.route(bodies, from: Self.refused, on: router)
        #expect(answers.count >= 2 && answers.count <= 2 + Self.refilled(since: start, perSecond: 50))
        try await answers.wait(for: bodies.count)
        #expect(answers.order == Array(bodies.indices))
        await router.close()
    }

    @Test("an admitted sender's answers are never paced, whatever they are")
    func admittedSenderIsNotPaced() async throws {
        let router = try makeRouter([echoTask], limits: Self.limits(burst: 1, perSecond: 1))
        let bodies = (0..<200).map { $0 % 2 == 0 ? "not json" : #"{"v":1,"kind":"sync"}"# }
        let answers = Self.route(bodies, from: .mainFrame(appOrigin), on: router)
        #expect(answers.count == 200)
        await router.close()
    }

    @Test("a sender only a task's own policy admits: that task answers it at once, its refusals are paced")
    func taskPolicyAdmits() async throws {
        let router = try makeRouter([], limits: Self.limits(burst: 1, perSecond: 1))
        try router.register(
            ClosureTask(
                name: "ads", policy: .origins([OriginPattern("https://ads.example")], allowsSubframes: true),
                execution: .immediate
            ) { (_: JSONValue?, _: CallContext) -> Int in 1 })
        // With and without options (the general path): an immediate task answers before `receive`
        // returns, so a paced answer would be missing here.
        let calls = (0..<20).map {
            $0 % 2 == 0
                ? #"{"v":1,"kind":"call","id":"a\#($0)","task":"ads"}"#
                : #"{"v":1,"kind":"call","id":"a\#($0)","task":"ads","options":null}"#
        }
        let answers = Self.route(calls, from: Self.refused, on: router)
        #expect(answers.count == 20)
        #expect(answers.jsons.allSatisfy { $0?.contains(#""ok":true"#) == true }, "\(answers.jsons.prefix(2))")
        // A task open to every frame must not lift the pacing of the frame's calls of other tasks
        // (attack 20's flood called a task nobody registered, from a frame such a task admits).
        let refused = Self.route(
            Array(repeating: #"{"v":1,"kind":"call","id":"n","task":"Nope"}"#, count: 20), from: Self.refused,
            on: router)
        #expect(refused.count <= 1)
        await router.close()
        #expect(refused.count == 20)
    }

    @Test("close() gives every held answer at once, and later ones are not held")
    func closeAnswersHeld() async throws {
        let router = try makeRouter([echoTask], limits: Self.limits(burst: 1, perSecond: 1))
        let answers = Self.route(Self.calls(50), from: Self.refused, on: router)
        #expect(answers.count == 1)
        await router.close()
        #expect(answers.order == Array(0..<50))
        let after = Self.route(Self.calls(10), from: Self.refused, on: router)
        #expect(after.count == 10)
    }

    @Test("a router that goes away gives its held answers")
    func deinitAnswersHeld() async throws {
        var router: BridgeRouter? = try makeRouter([echoTask], limits: Self.limits(burst: 1, perSecond: 1))
        let answers = Self.route(Self.calls(20), from: Self.refused, on: try #require(router))
        #expect(answers.count == 1)
        router = nil
        try await answers.wait(for: 20)
        #expect(answers.order == Array(0..<20))
    }
}
