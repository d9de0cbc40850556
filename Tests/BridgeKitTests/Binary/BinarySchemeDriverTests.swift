import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// The Apple scheme handler's logic (``BinarySchemeDriver``) with a fake `WKURLSchemeTask`.
@MainActor
@Suite("Binary values: scheme driver (Apple glue logic)")
struct BinarySchemeDriverTests {
    /// Records what the driver sends; `onSend` may stop the task.
    final class FakeTask: BinarySchemeTask {
        let method: String
        let url: String
        let origin: String?
        let body: Data?
        var status: Int?
        var received = Data()
        var sends = 0
        var finished = 0
        var failed = 0
        var onSend: (() -> Void)?

        init(method: String, token: String, origin: String? = "https://app.example", body: Data? = nil) {
            self.method = method
            url = InMemoryBinaryTransport.url(token)
            self.origin = origin
            self.body = body
        }

        func respond(status: Int, headers: [String: String]) { self.status = status }
        func send(_ data: Data) {
            sends += 1
            received.append(data)
            onSend?()
        }
        func finish() { finished += 1 }
        func fail(_ error: any Error) { failed += 1 }
    }

    final class Records: Sendable {
        let all = Mutex<[BinaryTransferRecord]>([])
        var list: [BinaryTransferRecord] { all.withLock { $0 } }
    }

    static func setup() throws -> (InMemoryPage, BinaryTransfers, Records) {
        let router = try makeRouter([])
        let transfers = BinaryTransfers(
            router: router, limits: BinaryLimits(chunkBytes: 1000, requestWait: 30, claimWait: 30))
        let records = Records()
        transfers.setTransferObserver { record in records.all.withLock { $0.append(record) } }
        try router.register(
            ClosureTask(name: "Make") { (count: Int, context: CallContext) -> BridgeBinary in
                try await transfers.send(Data((0..<count).map { UInt8($0 % 200) }), context: context)
            })
        try router.register(
            ClosureTask(name: "Save") { (file: BridgeBinary, context: CallContext) -> Int in
                try await transfers.data(of: file, context: context).count
            })
        try router.register(
            ClosureTask(name: "Broken") { (count: Int, context: CallContext) -> BridgeBinary in
                let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                    continuation.yield(Data(count: count))
                    continuation.finish(throwing: BridgeError.taskFailed("The source broke."))
                }
                return try await transfers.send(chunks: chunks, size: count * 2, context: context)
            })
        return (InMemoryPage(router: router), transfers, records)
    }

    static func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    @Test(
        "a download whose source throws mid-body fails the scheme task (never finishes it as if whole)",
        .timeLimit(.minutes(1)))
    func sourceThrows() async throws {
        let (page, transfers, _) = try Self.setup()
        let reply = await page.call("Broken", options: 1500)
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let driver = BinarySchemeDriver(transfers: transfers)
        let task = FakeTask(method: "GET", token: token)
        driver.start(task)
        #expect(await Self.waitUntil { task.failed + task.finished > 0 })
        #expect(task.status == 200)
        #expect(task.received.count == 1500, "the chunk before the failure was sent")
        #expect(task.failed == 1)
        #expect(task.finished == 0, "a short body must not look complete")
        #expect(driver.runningCount == 0)
    }

    @Test("a download is answered once: head, every chunk, finish", .timeLimit(.minutes(1)))
    func download() async throws {
        let (page, transfers, records) = try Self.setup()
        let reply = await page.call("Make", options: 5000)
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let driver = BinarySchemeDriver(transfers: transfers)
        let task = FakeTask(method: "GET", token: token)
        driver.start(task)
        #expect(await Self.waitUntil { task.finished == 1 })
        #expect(task.status == 200)
        #expect(task.received == Data((0..<5000).map { UInt8($0 % 200) }))
        #expect(task.sends == 5)
        #expect(driver.runningCount == 0)
        #expect(records.list.map(\.outcome) == [.finished])
    }

    @Test(
        "with the view's gate, a download's chunks stay within its budget unconfirmed, barriers confirm them, and all arrive",
        .timeLimit(.minutes(1)))
    func gatedDownload() async throws {
        let (page, transfers, records) = try Self.setup()
        let reply = await page.call("Make", options: 5000)
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let driver = BinarySchemeDriver(transfers: transfers)
        var barriersSent = 0
        let gate = DeliveryGate(budget: 2000) {
            barriersSent += 1
            await Task.yield()
        }
        let task = FakeTask(method: "GET", token: token)
        var largestUnconfirmed: Int64 = 0
        task.onSend = { largestUnconfirmed = max(largestUnconfirmed, gate.unconfirmedBytes) }
        driver.start(task, gate: gate)
        #expect(await Self.waitUntil { task.finished == 1 })
        #expect(largestUnconfirmed <= 2000, "unconfirmed bytes at a send: \(largestUnconfirmed)")
        #expect(barriersSent >= 2, "5000 bytes through a budget of 2000 need barriers: \(barriersSent)")
        #expect(task.received == Data((0..<5000).map { UInt8($0 % 200) }))
        #expect(records.list.map(\.outcome) == [.finished])
    }

    @Test(
        "a task the engine stops mid-download gets nothing more; the transfer ends cancelled, once",
        .timeLimit(.minutes(1)))
    func stoppedMidDownload() async throws {
        let (page, transfers, records) = try Self.setup()
        let reply = await page.call("Make", options: 5000)
        let token = try #require(reply["data"]?[BridgeBinary.placeholderKey]?.string("token"))
        let driver = BinarySchemeDriver(transfers: transfers)
        let task = FakeTask(method: "GET", token: token)
        task.onSend = { [weak task] in
            guard let task, task.sends == 2 else { return }
            driver.stop(task)
        }
        driver.start(task)
        #expect(await Self.waitUntil { records.list.count == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(task.sends == 2)
        #expect(task.finished == 0)
        #expect(records.list.map(\.outcome) == [.cancelled])
        driver.stop(task)
        #expect(records.list.count == 1)
    }

    @Test("an upload's body (URLRequest.httpBody) reaches the task; another origin is refused", .timeLimit(.minutes(1)))
    func upload() async throws {
        let (page, transfers, _) = try Self.setup()
        let driver = BinarySchemeDriver(transfers: transfers)
        let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 3)
        let id = try #require(page.send("Save", options: placeholder))
        // Once the task claimed the token, another origin's body is refused for its origin (403);
        // before, as any request of an origin that called nothing (404 no_room).
        #expect(await Self.waitUntil { transfers.openTransfers == 1 })
        let evil = FakeTask(method: "POST", token: token, origin: "https://evil.example", body: Data([6, 6, 6]))
        driver.start(evil)
        #expect(await Self.waitUntil { evil.finished == 1 })
        #expect(evil.status == 403)
        let task = FakeTask(method: "POST", token: token, body: Data([1, 2, 3]))
        driver.start(task)
        #expect(await Self.waitUntil { task.finished == 1 })
        #expect(task.status == 200)
        #expect(await page.reply(for: id)["data"] == 3)
    }
}
