import BridgeKit
import Foundation
import Testing

/// The time limit on waits for WebKit completions (``CompletionWait``), used by
/// `WebKitCookieStore` before the first load.
@Suite("Apple adapter: completion waits have a time limit", .timeLimit(.minutes(1)))
struct CompletionWaitTests {
    @Test("a completion that comes gives its value")
    func completes() async throws {
        let value = try await CompletionWait.wait(seconds: 5, operation: "op") {
            (complete: @escaping @Sendable (Int) -> Void) in
            complete(7)
        }
        #expect(value == 7)
    }

    @Test("a completion that never comes ends in a timeout naming the operation")
    func neverCompletes() async {
        await #expect(throws: BridgeError.self) {
            try await CompletionWait.wait(seconds: 0.2, operation: "WKHTTPCookieStore.setCookie") {
                (_: @escaping @Sendable (Int) -> Void) in
            }
        }
        do {
            _ = try await CompletionWait.wait(seconds: 0.1, operation: "WKHTTPCookieStore.setCookie") {
                (_: @escaping @Sendable (Int) -> Void) in
            }
        } catch let error as BridgeError {
            #expect(error.code == "timeout")
            #expect(error.message.contains("WKHTTPCookieStore.setCookie"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a late completion after the timeout and a second completion are ignored")
    func lateCompletion() async throws {
        let late = CompletionBox()
        await #expect(throws: BridgeError.self) {
            try await CompletionWait.wait(seconds: 0.05, operation: "op") {
                (complete: @escaping @Sendable (Int) -> Void) in
                late.store(complete)
            }
        }
        late.call(1)
        late.call(2)
        let value = try await CompletionWait.wait(seconds: 5, operation: "op") {
            (complete: @escaping @Sendable (Int) -> Void) in
            complete(3)
            complete(4)
        }
        #expect(value == 3)
    }

    @Test("cancelling the waiting task ends the wait")
    func cancelled() async {
        let task = Task {
            try await CompletionWait.wait(seconds: nil, operation: "op") { (_: @escaping @Sendable (Int) -> Void) in }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}

/// Holds a completion callback for a later call.
private final class CompletionBox: @unchecked Sendable {
    private var complete: (@Sendable (Int) -> Void)?
    func store(_ complete: @escaping @Sendable (Int) -> Void) { self.complete = complete }
    func call(_ value: Int) { complete?(value) }
}
