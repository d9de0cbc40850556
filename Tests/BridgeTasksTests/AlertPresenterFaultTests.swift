import BridgeKit
import BridgeKitTesting
import BridgeTasks
import Foundation
import Testing

/// A presenter that never answers and ignores cancellation (a badly written host presenter).
private struct DeafPresenter: AlertPresenter {
    let shown: Locked<Int>
    func present(_ request: AlertRequest) async throws -> Int {
        shown.withLock { $0 += 1 }
        // Suspends for ever, deaf to cancellation (never resumed).
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        return 0
    }
}

/// A presenter whose alert goes away when the call is cancelled, as the requirements ask.
private struct CooperativePresenter: AlertPresenter {
    let open: Locked<Int>
    func present(_ request: AlertRequest) async throws -> Int {
        open.withLock { $0 += 1 }
        defer { open.withLock { $0 -= 1 } }
        try await Task.sleep(for: .seconds(3600))
        return 0
    }
}

@Suite("Alert calls with presenters that answer late or never", .timeLimit(.minutes(1)))
struct AlertPresenterFaultTests {
    /// A page whose router records each outbound final reply's outcome by call id.
    private func page(_ presenter: any AlertPresenter) throws -> (InMemoryPage, Locked<[String: [String]]>) {
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        try router.register(AlertTask(presenter: presenter))
        let outcomes = Locked<[String: [String]]>([:])
        router.setTrafficObserver { record in
            guard record.direction == .outbound, record.kind == .reply, let id = record.id else { return }
            outcomes.withLock { $0[id, default: []].append(record.outcome ?? "?") }
        }
        return (InMemoryPage(router: router), outcomes)
    }

    /// Waits until `condition` holds, at most 30 s of wall-clock time (a sanitizer run on a loaded
    /// machine is slow); the expectations after it say what did not happen.
    private func until(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while !condition() && clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("a presenter that never answers: a navigation, a page cancel and close still settle every call once")
    func deafPresenter() async throws {
        let shown = Locked(0)
        let (page, outcomes) = try page(DeafPresenter(shown: shown))
        let a = try #require(page.send("Alert", options: ["message": "a"]))
        let b = try #require(page.send("Alert", options: ["message": "b"]))
        try await until { shown.withLock { $0 } == 2 }
        page.cancel(b)
        try await until { outcomes.withLock { $0[b] } != nil }
        page.navigate()
        try await until { outcomes.withLock { $0[a] } != nil }
        let c = try #require(page.send("Alert", options: ["message": "c"]))
        try await until { shown.withLock { $0 } == 3 }
        await page.router.close()
        try await until { outcomes.withLock { $0[c] } != nil }
        try await Task.sleep(for: .milliseconds(100))
        #expect(outcomes.withLock { $0 } == [a: ["navigated"], b: ["cancelled"], c: ["unavailable"]])
    }

    @Test("many concurrent alerts: a navigation settles each once and every alert goes away")
    func manyConcurrent() async throws {
        let open = Locked(0)
        let (page, outcomes) = try page(CooperativePresenter(open: open))
        var ids: [String] = []
        for n in 0..<50 { ids.append(try #require(page.send("Alert", options: ["message": .string("\(n)")]))) }
        try await until { open.withLock { $0 } == 50 }
        page.navigate()
        try await until { open.withLock { $0 } == 0 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(open.withLock { $0 } == 0, "every alert was dismissed")
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == 50 && seen.values.allSatisfy { $0 == ["navigated"] }, "\(seen)")
    }

    @Test("releasing the page and its router while alerts are shown frees the router and dismisses every alert")
    func releasedWhileShown() async throws {
        let open = Locked(0)
        weak var weakRouter: BridgeRouter?
        do {
            let (page, _) = try page(CooperativePresenter(open: open))
            weakRouter = page.router
            for n in 0..<5 { page.send("Alert", options: ["message": .string("\(n)")]) }
            try await until { open.withLock { $0 } == 5 }
        }
        try await until { weakRouter == nil && open.withLock { $0 } == 0 }
        #expect(weakRouter == nil, "the router is kept alive by its running Alert calls")
        #expect(open.withLock { $0 } == 0, "alerts stay on screen after their router is gone")
    }
}
