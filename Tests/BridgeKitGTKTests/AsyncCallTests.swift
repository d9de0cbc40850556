#if WebKitGTK
@testable import BridgeKitGTK
import CWebKitGTK
import Dispatch
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("Asynchronous GLib calls")
    struct AsyncCalls {
        /// Closing a view cancels its running calls and drops them at once, while the cancel runs
        /// later on the GTK thread; a call whose C operation had finished was then the last owner
        /// of its `GCancellable`, and the GTK thread cancelled a freed object (GLib criticals on an
        /// instance with a NULL class pointer, then a crash of the test process; seen once, in the
        /// R24 test of the script message handlers).
        @Test(
            "a cancelled call dropped at once keeps its GCancellable until the GTK thread has cancelled it",
            .timeLimit(.minutes(1)))
        func cancelOutlivesTheCall() async throws {
            try GLibMainLoop.shared.start()
            var call: GLibAsyncOperation<Int>? = GLibAsyncOperation { _, _ in .success(0) }
            let cancellable = try #require(call?.cancellable)
            let observer = GTKThread.perform { GTKFinalizationObserver(observing: gCast(cancellable.raw)) }

            // Hold the GTK thread, so that the cancel waits behind it, as it does behind WebKit's work.
            let hold = DispatchSemaphore(value: 0)
            GTKThread.post { hold.wait() }
            call?.cancel(with: .closed)
            #expect(await call?.value() == .failure(.closed))
            call = nil
            #expect(!observer.isFinalized, "the waiting cancel still owns the GCancellable")

            hold.signal()
            GTKThread.perform {}  // hops run in order: the cancel has run
            #expect(observer.isFinalized, "released once the cancel has run")
        }
    }
}
#endif
