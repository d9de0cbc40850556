import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Attacks on downloads read in parts (`GET …?offset=<n>`, `?cancel`, docs/protocol.md "Download
/// in parts"): what a page (its own origin, another origin, a later document) can make native
/// hold or end, and the races between a part, `?cancel`, a whole `GET`, the document's end and
/// `close()`. Every download must end exactly once, and never be held past the rules.
@Suite("Binary values: downloads in parts under attack")
struct BinaryDownloadPartAttackTests {
    typealias Parts = BinaryDownloadPartsTests

    /// Reads exactly `count` bytes of `body` without asking for its end (the transport's last
    /// read, which tells native the part is over, has not come yet).
    static func read(_ body: any BinaryBodyReader, exactly count: Int) async throws -> Int {
        var got = 0
        while got < count, let chunk = try await body.read(maxBytes: count - got) { got += chunk.count }
        return got
    }

    /// Kind of fault: a download that becomes idle (between two parts) after its document ended.
    /// The document's end sweeps only idle downloads; one whose part was being read is left to
    /// its reader, which checks the page generation only when it reads a chunk. The part's last
    /// read (no chunk: the part is over) made the download idle again without looking at the
    /// generation, so a download of an ended document stayed held (its bytes, its source) until
    /// its lifetime passed (60 s by default) instead of ending with its document.
    @Test(
        "a part whose end is read after its document ended ends the download at once (cancelled, as between parts), not after offerLifetime",
        .timeLimit(.minutes(1)))
    func partEndAfterDocumentEnd() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, source) = try await Parts.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let first = await Parts.get(transfers, token, offset: 0)
        #expect(first.status == 200)
        #expect(try await Self.read(first.body, exactly: 64 << 10) == 64 << 10)
        page.navigate()
        transfers.pageDidCommitNavigation()
        #expect(records.list.isEmpty, "a part being read is left to its reader")
        #expect(try await first.body.read(maxBytes: 1 << 20) == nil, "the part is over")
        #expect(
            await eventually { records.list.count == 1 },
            "the download of the ended document ended at once: \(records.list), held \(transfers.heldBytes)")
        #expect(transfers.openTransfers == 0)
        #expect(transfers.heldBytes == 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(records.list.count == 1, "once")
        #expect(source.made.withLock { $0 } <= 80 << 10, "the source was not read on")
    }

    /// Kind of fault: a part's body that its transport drops without reading it to its end or
    /// cancelling it. A whole download's body ends its download when it is released (its reader's
    /// `deinit`); a part's did not, so the download stayed "part open" for good: never idle, so
    /// neither its lifetime nor the document's end ended it, and its bytes and source were held
    /// until the web view closed.
    @Test(
        "a part body released unread, or read in half, ends its download once (cancelled), like a whole body",
        .timeLimit(.minutes(1)))
    func droppedPartBody() async throws {
        let count = 200 << 10
        for readFirst in [0, 1024] {
            let (page, transfers, token, records, _) = try await Parts.offered(count: count, size: count)
            defer { withExtendedLifetime(page) {} }
            do {
                let part = await Parts.get(transfers, token, offset: 0)
                #expect(part.status == 200)
                if readFirst > 0 { #expect(try await Self.read(part.body, exactly: readFirst) == readFirst) }
            }
            #expect(
                await eventually { records.list.map(\.outcome) == [.cancelled] },
                "read \(readFirst): \(records.list), open \(transfers.openTransfers)")
            #expect(transfers.openTransfers == 0)
            #expect(transfers.heldBytes == 0)
            #expect(await Parts.get(transfers, token, offset: 0).status == 404)
        }
    }
}
