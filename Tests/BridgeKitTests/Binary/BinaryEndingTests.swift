import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// How an upload ends when its document goes away or the web view closes: the call gets the code
/// the router gives every call then (`unavailable` for a close; `navigated`, not delivered, for a
/// replaced document), never `timeout` or what the cut body looked like.
@Suite("Binary values: uploads that end with their page")
struct BinaryEndingTests {
    typealias Fixture = BinaryTransfersTests

    /// What a host does when the web view closes (`WebKitGTKBridgeHost.close()`): the transfers
    /// close first, then the router. The pause lets the task answer first, as it may in a host
    /// (the router's own close reply would otherwise hide the task's answer).
    static func closeLikeHost(_ page: InMemoryPage, _ transfers: BinaryTransfers) async {
        transfers.close()
        try? await Task.sleep(for: .milliseconds(100))
        await page.router.close()
    }

    @Test(
        "close before the page's body arrived: the call gets unavailable (the router's close code), not timeout",
        .timeLimit(.minutes(1)))
    func closeBeforeBody() async throws {
        let (page, transfers, _, records) = try Fixture.fixture()
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Save", options: ["name": "x", "file": placeholder]))
        #expect(await eventually { transfers.openTransfers == 1 }, "the task claimed the token")
        await Self.closeLikeHost(page, transfers)
        let reply = await page.reply(for: id)
        #expect(reply["error"]?.string("code") == "unavailable")
        #expect(page.messages(for: id).count == 1, "one reply")
        #expect(records.list.map(\.outcome) == [.cancelled])
    }

    @Test(
        "close mid-body: the call gets unavailable, the page's request is answered, its body stopped",
        .timeLimit(.minutes(1)))
    func closeMidBody() async throws {
        let (page, transfers, transport, records) = try Fixture.fixture()
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Save", options: ["name": "x", "file": placeholder]))
        let body = StallingBody(first: Data([1, 2]))
        async let status = transport.transfers.handle(
            BinaryRequest(method: "POST", url: InMemoryBinaryTransport.url(token), origin: appOrigin, body: body))
        #expect(await eventually { body.reads >= 1 })
        await Self.closeLikeHost(page, transfers)
        let reply = await page.reply(for: id)
        #expect(reply["error"]?.string("code") == "unavailable")
        #expect(page.messages(for: id).count == 1, "one reply")
        #expect(await status.status == 499)
        #expect(body.cancelled)
        #expect(records.list.map(\.outcome) == [.cancelled])
    }

    /// A task that hands its upload to an unstructured task (which the router's cancel does not
    /// reach) and records the error that upload ends with.
    final class Detached: Sendable {
        let error = Mutex<BridgeError?>(nil)
        let finished = Mutex(false)

        func task(_ transfers: BinaryTransfers) -> some BridgeTask {
            ClosureTask(name: "Later") { (options: BinaryTransfersTests.SaveOptions, context: CallContext) -> Bool in
                let upload = try transfers.upload(of: options.file, context: context)
                let done = Task.detached { () -> BridgeError? in
                    do {
                        for try await _ in upload {}
                        return nil
                    } catch {
                        return error as? BridgeError
                    }
                }
                let error = await done.value
                self.error.withLock { $0 = error }
                self.finished.withLock { $0 = true }
                if let error { throw error }
                return true
            }
        }
    }

    @Test(
        "navigation before the body arrived: the upload ends navigated (not timeout); the replaced document gets nothing",
        .timeLimit(.minutes(1)))
    func navigationBeforeBody() async throws {
        let detached = Detached()
        let (page, transfers, _, records) = try Fixture.fixture(extra: [])
        try page.router.register(detached.task(transfers))
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Later", options: ["name": "x", "file": placeholder]))
        #expect(await eventually { transfers.openTransfers == 1 })
        page.navigate()
        transfers.pageDidCommitNavigation()
        #expect(await eventually { detached.finished.withLock { $0 } })
        #expect(detached.error.withLock { $0?.code } == "navigated")
        #expect(page.messages(for: id).isEmpty, "a reply never reaches another document")
        #expect(records.list.map(\.outcome) == [.failed("navigated")])
    }

    @Test(
        "close before the body arrived, read in an unstructured task: the upload ends unavailable, not timeout",
        .timeLimit(.minutes(1)))
    func closeDetached() async throws {
        let detached = Detached()
        let (page, transfers, _, _) = try Fixture.fixture(extra: [])
        try page.router.register(detached.task(transfers))
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Later", options: ["name": "x", "file": placeholder]))
        #expect(await eventually { transfers.openTransfers == 1 })
        await Self.closeLikeHost(page, transfers)
        #expect(await eventually { detached.finished.withLock { $0 } })
        #expect(detached.error.withLock { $0?.code } == "unavailable")
        #expect(await page.reply(for: id)["error"]?.string("code") == "unavailable")
    }

    @Test("a body that never comes still ends the call with timeout", .timeLimit(.minutes(1)))
    func bodyNeverComes() async throws {
        let (page, _, _, records) = try Fixture.fixture(limits: BinaryLimits(requestWait: 30, claimWait: 0.2))
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 10)
        let reply = await page.call("Save", options: ["name": "x", "file": placeholder])
        #expect(reply["error"]?.string("code") == "timeout")
        #expect(records.list.map(\.outcome) == [.failed("timeout")])
    }
}
