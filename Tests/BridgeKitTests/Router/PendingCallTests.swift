import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: the race between the code that starts a call's work and whoever settles the
/// call first (a cancel, a timeout, a navigation, close()) loses the cancellation: the work keeps
/// running after its call settled, because the cancel came before the work was attached, or both
/// sides raced. (The rule is ``CallStateMachine``'s; these tests go through the router's lock.)
@Suite("Pending calls: the work is cancelled whether the cancel comes before or after it is attached")
struct PendingCallTests {
    static func makeCall(router: BridgeRouter) -> PendingCall {
        PendingCall(id: "c1", taskName: "t", generation: 0, source: .mainFrame(appOrigin), route: .none, router: router)
    }

    /// Settles `call` as a page cancel would.
    static func cancel(_ call: PendingCall, router: BridgeRouter) {
        _ = router.settle(call, .failure(.cancelled()), by: .pageCancelled)
    }

    /// A task that waits until it is cancelled (or a minute passes).
    static func work() -> Task<Void, Never> {
        Task { try? await Task.sleep(for: .seconds(60)) }
    }

    @Test("attached, then cancelled: the settler cancels the work")
    func attachThenCancel() async {
        let router = BridgeRouter()
        let call = Self.makeCall(router: router)
        let work = Self.work()
        router.attachWork(work, to: call)
        #expect(!work.isCancelled)
        Self.cancel(call, router: router)
        #expect(work.isCancelled)
    }

    @Test("cancelled before it is attached: attaching says so, and the starter cancels the work")
    func cancelThenAttach() async {
        let router = BridgeRouter()
        let call = Self.makeCall(router: router)
        Self.cancel(call, router: router)
        let work = Self.work()
        router.attachWork(work, to: call)
        #expect(work.isCancelled)
    }

    @Test("attach and cancel racing on two threads, 2,000 times: the work is always cancelled, once decided")
    func racing() async {
        let router = BridgeRouter()
        for _ in 0..<2_000 {
            let call = Self.makeCall(router: router)
            let work = Self.work()
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    router.attachWork(work, to: call)
                } else {
                    Self.cancel(call, router: router)
                }
            }
            #expect(work.isCancelled)
            work.cancel()
        }
    }

    @Test("progress of a call whose router is gone: unavailable, not a crash")
    func progressWithoutRouter() async throws {
        var router: BridgeRouter? = BridgeRouter()
        let call = Self.makeCall(router: try #require(router))
        let context = CallContext(call: call)
        router = nil
        let error = await #expect(throws: BridgeError.self) { try await context.progress(1) }
        #expect(error?.code == "unavailable")
        #expect(context.callID == "c1" && context.taskName == "t")
    }
}
