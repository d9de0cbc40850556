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

    /// Kind of fault: `?cancel` deciding on an unread download and ending it in two steps. A part
    /// (or a whole `GET`) that took the download in between was then served every byte while the
    /// download was reported cancelled with none, its held bytes given back while its reader still
    /// read the source: a download "ended" that went on.
    @Test(
        "?cancel racing the first part or a whole GET: either the cancel wins (the request is refused or fails) or the request wins (the cancel ends what it reads); one record, never a served download reported cancelled",
        .timeLimit(.minutes(1)))
    func cancelRacingFirstRequest() async throws {
        for round in 0..<120 {
            let size = 1000
            let (page, transfers, token, records, _) = try await Parts.offered(count: size, size: size)
            defer { withExtendedLifetime(page) {} }
            let offset: Int? = round % 2 == 0 ? 0 : nil
            async let told = Parts.cancel(transfers, token)
            async let asked = Parts.get(transfers, token, offset: offset)
            let (cancel, request) = await (told, asked)
            var served: Int?
            if request.status == 200 { served = try? await Parts.readAll(request.body).count }
            #expect(await eventually { records.list.count == 1 }, "round \(round): \(records.list)")
            let record = try #require(records.list.first)
            if served == size {
                #expect(
                    record.outcome == .finished && record.bytes == size,
                    "round \(round): every byte was served, cancel \(cancel.status): \(record)")
            } else {
                #expect(record.outcome == .cancelled, "round \(round): \(record)")
            }
            #expect(transfers.openTransfers == 0)
            #expect(transfers.heldBytes == 0)
        }
    }

    @Test(
        "malformed and huge offsets, ?cancel with a value or another case, a part at the size, a part for an earlier document's token: refused, the download left alone, then read to its end once",
        .timeLimit(.minutes(1)))
    func refusedQueries() async throws {
        let count = 100 << 10
        let (page, transfers, token, records, _) = try await Parts.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        let base = InMemoryBinaryTransport.url(token)
        for query in [
            "?offset=-1", "?offset=+0", "?offset=0x0", "?offset=", "?offset=1000000000000000", "?offset=0&cancel",
            "?cancel=1", "?Cancel", "?cancel&offset=0", "?offset=0?offset=0", "?",
        ] {
            let refused = await transfers.handle(BinaryRequest(method: "GET", url: base + query, origin: appOrigin))
            #expect(refused.status == 404, "\(query) names no transfer")
        }
        for offset in [999_999_999_999_999, count, 64 << 10, 1] {
            let refused = await Parts.get(transfers, token, offset: offset)
            #expect(refused.status == 409, "offset \(offset) is not the next one")
        }
        #expect(records.list.isEmpty)
        var received = Data()
        while received.count < count {
            let part = await Parts.get(transfers, token, offset: received.count)
            try #require(part.status == 200)
            received.append(try await Parts.readAll(part.body))
            let past = await Parts.get(transfers, token, offset: count)
            #expect(past.status == 409 || past.status == 404, "a part at the size is never served")
        }
        #expect(received == Data((0..<count).map { UInt8($0 % 251) }))
        #expect(records.list.map(\.outcome) == [.finished])

        let (laterPage, later, laterToken, laterRecords, _) = try await Parts.offered(count: count, size: count)
        defer { withExtendedLifetime(laterPage) {} }
        _ = try await Parts.readAll(await Parts.get(later, laterToken, offset: 0).body)
        laterPage.navigate()
        later.pageDidCommitNavigation()
        #expect(await Parts.get(later, laterToken, offset: 64 << 10).status == 404, "the earlier document's token")
        #expect(await Parts.cancel(later, laterToken).status == 404)
        #expect(laterRecords.list.map(\.outcome) == [.cancelled])
    }

    @Test(
        "close() between two parts and while a part is read ends each download once (cancelled); later parts and ?cancel are answered unavailable (503)",
        .timeLimit(.minutes(1)))
    func closeBetweenAndDuringParts() async throws {
        let count = 200 << 10
        let (page, transfers, token, records, _) = try await Parts.offered(count: count, size: count)
        defer { withExtendedLifetime(page) {} }
        _ = try await Parts.readAll(await Parts.get(transfers, token, offset: 0).body)
        let reading = await Parts.get(transfers, token, offset: 64 << 10)
        #expect(try await Self.read(reading.body, exactly: 1024) == 1024)
        transfers.close()
        await #expect(throws: BridgeError.self) { try await Parts.readAll(reading.body) }
        #expect(records.list.map(\.outcome) == [.cancelled])
        #expect(await Parts.get(transfers, token, offset: 64 << 10).status == 503, "unavailable: the web view closed")
        #expect(await Parts.cancel(transfers, token).status == 503)
        try await Task.sleep(for: .milliseconds(100))
        #expect(records.list.count == 1, "once")
        #expect(transfers.heldBytes == 0)
    }

    /// Whether `response` serves a part (not a JSON answer).
    static func isPart(_ response: BinaryResponse) -> Bool {
        response.status == 200 && response.headers["Content-Type"] != "application/json"
    }

    @Test(
        "concurrent requests for the same next part, with a ?cancel among them: at most one served, one record",
        .timeLimit(.minutes(1)))
    func concurrentParts() async throws {
        for round in 0..<40 {
            let count = 100 << 10
            let (page, transfers, token, records, _) = try await Parts.offered(count: count, size: count)
            defer { withExtendedLifetime(page) {} }
            let responses = await withTaskGroup(of: BinaryResponse.self) { group in
                for i in 0..<6 {
                    group.addTask {
                        i == 3 && round % 2 == 1
                            ? await Parts.cancel(transfers, token) : await Parts.get(transfers, token, offset: 0)
                    }
                }
                var all: [BinaryResponse] = []
                for await response in group { all.append(response) }
                return all
            }
            let parts = responses.filter(Self.isPart)
            #expect(parts.count <= 1, "round \(round): one part at a time")
            for part in parts { _ = try? await Parts.readAll(part.body) }
            for other in responses where !Self.isPart(other) {
                _ = try? await Parts.readAll(other.body)
            }
            if round % 2 == 1 {
                #expect(await eventually { records.list.count == 1 }, "round \(round): \(records.list)")
                #expect(records.list.map(\.outcome) == [.cancelled])
            } else {
                #expect(records.list.isEmpty, "round \(round): the download waits for its next part")
            }
            transfers.close()
            #expect(await eventually { records.list.count == 1 })
        }
    }
}
