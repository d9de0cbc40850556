import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// The transfers follow their router's page generations by themselves: whichever host reports a
/// commit to the router (WebKitGTK's host, `WebViewBridge`'s document notice or the app's
/// `navigationCommitted()`, a test page), the old document's transfers end at that moment, with
/// no second call to ``BinaryTransfers/pageDidCommitNavigation()``. Until this suite, only the
/// WebKitGTK host made that second call; with `WebViewBridge` an old document's download kept its
/// bytes held until its lifetime ran out.
@Suite("Binary values: transfers follow the router's page generations")
struct BinaryGenerationTests {
    @Test(
        "a commit the router alone is told of ends the old document's upload at once (failed navigated)",
        .timeLimit(.minutes(1)))
    func uploadEndsWithRouterCommit() async throws {
        let detached = BinaryEndingTests.Detached()
        let (page, transfers, _, records) = try BinaryTransfersTests.fixture(extra: [])
        try page.router.register(detached.task(transfers))
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 10)
        let id = try #require(page.send("Later", options: ["name": "x", "file": placeholder]))
        #expect(await eventually { transfers.openTransfers == 1 })
        page.navigate()  // the router's pageDidCommitNavigation(), nothing else
        #expect(transfers.openTransfers == 0, "ended before the commit returned")
        #expect(records.list.map(\.outcome) == [.failed("navigated")])
        #expect(await eventually { detached.finished.withLock { $0 } })
        #expect(detached.error.withLock { $0?.code } == "navigated")
        #expect(page.messages(for: id).isEmpty, "a reply never reaches another document")
    }

    @Test(
        "a commit the router alone is told of ends the old document's download between two parts and frees its bytes",
        .timeLimit(.minutes(1)))
    func downloadEndsWithRouterCommit() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await BinaryDownloadPartsTests.offered(count: count, size: count)
        let first = await BinaryDownloadPartsTests.get(transfers, token, offset: 0)
        _ = try await BinaryDownloadPartsTests.readAll(first.body)
        #expect(transfers.heldBytes > 0)
        page.navigate()
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(transfers.openTransfers == 0)
        #expect(transfers.heldBytes == 0)
        #expect(await BinaryDownloadPartsTests.get(transfers, token, offset: 64 << 10).status == 404)
    }

    @Test("the router does not keep its transfers alive, and commits after they are gone are harmless")
    func routerHoldsTransfersWeakly() throws {
        let page = InMemoryPage(router: try makeRouter([]))
        weak var released: BinaryTransfers?
        do {
            let transfers = BinaryTransfers(router: page.router)
            released = transfers
            let other = BinaryTransfers(router: page.router)
            withExtendedLifetime((transfers, other)) {}
        }
        #expect(released == nil)
        page.navigate()
        page.navigate()
        let kept = BinaryTransfers(router: page.router)
        page.navigate()
        #expect(kept.openTransfers == 0)
    }
}
