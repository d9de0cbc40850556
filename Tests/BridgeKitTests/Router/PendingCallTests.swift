@testable import BridgeKit
import Foundation
import Synchronization
import Testing

/// Kind of fault: the lock-free handshake between the code that starts a call's work and
/// whoever settles the call first (a cancel, a timeout, a navigation, close()) loses the
/// cancellation: the work keeps running after its call settled, because the cancel came before
/// the work was attached, or both sides raced.
@Suite("Pending calls: the work is cancelled whether the cancel comes before or after it is attached")
struct PendingCallTests {
    static func makeCall(router: BridgeRouter) -> PendingCall {
        PendingCall(id: "c1", taskName: "t", generation: 0, source: .mainFrame(appOrigin), replyHandler: nil, router: router)
    }

    /// A task that waits until it is cancelled (or a minute passes).
    static func work() -> Task<Void, Never> {
        Task { try? await Task.sleep(for: .seconds(60)) }
    }

    @Test("attached, then cancelled: the settler cancels the work")
    func attachThenCancel() async {
        let call = Self.makeCall(router: BridgeRouter())
        let work = Self.work()
        #expect(call.attachWork(work))
        call.cancelWork()
        #expect(work.isCancelled)
    }

    @Test("cancelled before it is attached: attaching says so, and the starter cancels the work")
    func cancelThenAttach() async {
        let call = Self.makeCall(router: BridgeRouter())
        call.cancelWork()
        let work = Self.work()
        #expect(!call.attachWork(work))
        work.cancel()
        #expect(work.isCancelled)
    }

    @Test("attach and cancel racing on two threads, 2,000 times: the work is always cancelled, once decided")
    func racing() async {
        let router = BridgeRouter()
        for _ in 0..<2_000 {
            let call = Self.makeCall(router: router)
            let work = Self.work()
            let attached = Atomic<Bool>(false)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    let ok = call.attachWork(work)
                    attached.store(ok, ordering: .relaxed)
                    if !ok { work.cancel() }
                } else {
                    call.cancelWork()
                }
            }
            #expect(work.isCancelled, "attached: \(attached.load(ordering: .relaxed))")
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
