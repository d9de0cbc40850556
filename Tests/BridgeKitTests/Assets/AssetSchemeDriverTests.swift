import BridgeKit
import Foundation
import Testing

/// The Apple asset scheme handler's logic (`AssetSchemeDriver`, behind `WebKitAssetSchemeHandler`)
/// with a recording fake of `WKURLSchemeTask`: what is answered, in which order, how often, and
/// that a stopped task gets nothing more. No waiting for a time: `settled()` returns once every
/// file was opened, read and closed.
@MainActor
@Suite("Asset scheme driver (Apple glue logic)")
struct AssetSchemeDriverTests {
    /// Records every answer; `onRespond` and `onSend` may stop the task.
    final class FakeTask: AssetSchemeTask {
        enum Event: Equatable {
            case respond(Int, [String: String])
            case send(Data)
            case finish
            case fail
        }
        let method: String
        let url: String
        let origin: String?
        var events: [Event] = []
        var onRespond: (() -> Void)?
        var onSend: (() -> Void)?

        init(_ url: String, method: String = "GET", origin: String? = nil) {
            self.url = url
            self.method = method
            self.origin = origin
        }

        func respond(status: Int, headers: [String: String]) {
            events.append(.respond(status, headers))
            onRespond?()
        }
        func send(_ data: Data) {
            events.append(.send(data))
            onSend?()
        }
        func finish() { events.append(.finish) }
        func fail(_ error: any Error) { events.append(.fail) }

        var status: Int? {
            guard case .respond(let status, _) = events.first else { return nil }
            return status
        }
        var headers: [String: String] {
            guard case .respond(_, let headers) = events.first else { return [:] }
            return headers
        }
        var body: Data {
            events.reduce(into: Data()) { body, event in if case .send(let data) = event { body.append(data) } }
        }
        var sends: Int { events.count { if case .send = $0 { true } else { false } } }
        /// Whether the answer is whole: one head, then chunks, then one finish, and nothing after.
        var finishedOnce: Bool { events.last == .finish && events.count { $0 == .finish || $0 == .fail } == 1 }
    }

    static let page = "app://bundle/index.html"

    static func setup(chunkBytes: Int = 4) throws -> (AssetPathTests.Tree, AssetSchemeDriver) {
        let tree = try AssetPathTests.Tree()
        try Data("0123456789".utf8).write(to: tree.root.appendingPathComponent("ten.txt"))
        try Data().write(to: tree.root.appendingPathComponent("empty.js"))
        let folder = try AssetFolder(directory: tree.root)
        return (tree, AssetSchemeDriver(folder: folder, chunkBytes: chunkBytes))
    }

    @Test("a file is answered once: 200 with type and length, its bytes in chunks, finish", .timeLimit(.minutes(1)))
    func servesAFile() async throws {
        let (tree, driver) = try Self.setup()
        _ = tree
        let task = FakeTask("app://bundle/ten.txt")
        driver.start(task, viewURL: Self.page)
        await driver.settled()
        #expect(task.status == 200)
        #expect(
            task.headers == [
                "Content-Type": "text/plain; charset=utf-8", "Content-Length": "10",
                "X-Content-Type-Options": "nosniff",
            ])
        #expect(task.body == Data("0123456789".utf8))
        #expect(task.sends == 3, "chunks of at most 4 bytes")
        #expect(task.finishedOnce)
        #expect(driver.runningCount == 0)
        #expect(driver.filesOpened == 1)
        #expect(driver.filesClosed == 1)

        let html = FakeTask("app://bundle/index.html?v=1")
        driver.start(html, viewURL: Self.page)
        let empty = FakeTask("app://bundle/empty.js")
        driver.start(empty, viewURL: Self.page)
        await driver.settled()
        #expect(html.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(html.body == Data("hello".utf8))
        #expect(html.finishedOnce)
        #expect(
            empty.events == [
                .respond(200, AssetPath.headers(contentType: "text/javascript; charset=utf-8", length: 0)), .finish,
            ])
        #expect(driver.filesClosed == 3)
    }

    @Test(
        "refusals: 405 for another method, 403 for another origin or view, 400 and 404 from the path rules",
        .timeLimit(.minutes(1)))
    func refusals() async throws {
        let (tree, driver) = try Self.setup()
        _ = tree
        let cases: [(FakeTask, String?, Int)] = [
            (FakeTask("app://bundle/ten.txt", method: "POST"), Self.page, 405),
            (FakeTask("app://bundle/ten.txt", method: "HEAD"), Self.page, 405),
            (FakeTask("app://bundle/ten.txt", origin: "https://evil.example"), Self.page, 403),
            (FakeTask("app://bundle/ten.txt", origin: "null"), Self.page, 403),
            (FakeTask("app://bundle/ten.txt"), "https://evil.example/", 403),
            (FakeTask("app://bundle/ten.txt"), nil, 403),
            (FakeTask("app://bundle/%2e%2e/secret.txt"), Self.page, 400),
            (FakeTask("app://bundle/a//b"), Self.page, 400),
            (FakeTask("app://bundle/.hidden"), Self.page, 404),
            (FakeTask("app://other/ten.txt"), Self.page, 404),
            (FakeTask("app://bundle/sub/"), Self.page, 404),
            // From the file system: missing, outside through a link, a directory, a FIFO, a loop.
            (FakeTask("app://bundle/missing.txt"), Self.page, 404),
            (FakeTask("app://bundle/out.txt"), Self.page, 404),
            (FakeTask("app://bundle/outdir/file.txt"), Self.page, 404),
            (FakeTask("app://bundle/sub"), Self.page, 404),
            (FakeTask("app://bundle/fifo"), Self.page, 404),
            (FakeTask("app://bundle/loop"), Self.page, 404),
        ]
        for (task, view, _) in cases { driver.start(task, viewURL: view) }
        await driver.settled()
        for (task, view, status) in cases {
            #expect(task.status == status, "\(task.method) \(task.url) in \(view ?? "nil")")
            #expect(task.headers["Content-Type"] == "text/plain; charset=utf-8")
            #expect(task.headers["Content-Length"] == String(task.body.count))
            #expect(!task.body.isEmpty)
            #expect(!String(decoding: task.body, as: UTF8.self).contains("SECRET"))
            #expect(task.finishedOnce, "\(task.url)")
        }
        #expect(driver.filesOpened == 0, "a refused request opens nothing")
        #expect(driver.runningCount == 0)
    }

    @Test("the folder's own origin may fetch; a same-origin request without Origin too", .timeLimit(.minutes(1)))
    func ownOrigin() async throws {
        let (tree, driver) = try Self.setup()
        _ = tree
        let task = FakeTask("app://bundle/ten.txt", origin: "app://bundle")
        driver.start(task, viewURL: "app://bundle/sub/page.html#x")
        await driver.settled()
        #expect(task.status == 200)
        #expect(task.finishedOnce)
    }

    @Test("a task stopped before its file is opened gets nothing; the file is closed", .timeLimit(.minutes(1)))
    func stoppedBeforeOpen() async throws {
        let (tree, driver) = try Self.setup()
        _ = tree
        let task = FakeTask("app://bundle/ten.txt")
        driver.start(task, viewURL: Self.page)
        driver.stop(task)
        #expect(driver.runningCount == 0)
        await driver.settled()
        #expect(task.events.isEmpty)
        #expect(driver.filesOpened == driver.filesClosed)
    }

    @Test("a task stopped in its head or mid-body gets nothing more; the file is closed", .timeLimit(.minutes(1)))
    func stoppedWhileAnswered() async throws {
        let (tree, driver) = try Self.setup()
        _ = tree
        let inHead = FakeTask("app://bundle/ten.txt")
        inHead.onRespond = { [unowned driver, unowned inHead] in driver.stop(inHead) }
        let midBody = FakeTask("app://bundle/ten.txt")
        midBody.onSend = { [unowned driver, unowned midBody] in driver.stop(midBody) }
        driver.start(inHead, viewURL: Self.page)
        driver.start(midBody, viewURL: Self.page)
        await driver.settled()
        #expect(inHead.events.count == 1)
        #expect(inHead.status == 200)
        #expect(midBody.sends == 1)
        #expect(midBody.events.count == 2, "a head and one chunk, no finish")
        #expect(driver.filesOpened == 2)
        #expect(driver.filesClosed == 2)
        #expect(driver.runningCount == 0)
        // Stopping again, or a task never started, changes nothing.
        driver.stop(midBody)
        driver.stop(FakeTask("app://bundle/ten.txt"))
        #expect(midBody.events.count == 2)
    }

    @Test("a file that shrank after it was opened fails the task instead of finishing short", .timeLimit(.minutes(1)))
    func shrunkFile() async throws {
        let (tree, driver) = try Self.setup()
        let path = tree.root.appendingPathComponent("ten.txt").path
        let task = FakeTask("app://bundle/ten.txt")
        task.onSend = { _ = truncate(path, 5) }
        driver.start(task, viewURL: Self.page)
        await driver.settled()
        #expect(task.status == 200)
        #expect(task.body == Data("01234".utf8).prefix(task.body.count))
        #expect(task.events.last == .fail)
        #expect(task.events.count { $0 == .finish } == 0, "a short body must not look complete")
        #expect(driver.filesClosed == 1)
    }

    @Test("a large file arrives whole in chunks of the driver's size", .timeLimit(.minutes(1)))
    func largeFile() async throws {
        let (tree, _) = try Self.setup()
        let bytes = Data((0..<300_000).map { UInt8($0 % 251) })
        try bytes.write(to: tree.root.appendingPathComponent("big.wasm"))
        let driver = AssetSchemeDriver(folder: try AssetFolder(directory: tree.root), chunkBytes: 64 * 1024)
        let task = FakeTask("app://bundle/big.wasm")
        driver.start(task, viewURL: Self.page)
        await driver.settled()
        #expect(task.headers["Content-Type"] == "application/wasm")
        #expect(task.headers["Content-Length"] == "300000")
        #expect(task.body == bytes)
        #expect(task.sends == 5)
        #expect(task.finishedOnce)
    }

    @Test(
        "with a gate, no chunk goes out beyond its budget unconfirmed, barriers confirm them, and every file arrives whole",
        .timeLimit(.minutes(1)))
    func gateHoldsChunks() async throws {
        let (tree, driver) = try Self.setup(chunkBytes: 4)
        _ = tree
        var barriersSent = 0
        let gate = DeliveryGate(budget: 8) {
            barriersSent += 1
            await Task.yield()
        }
        let tasks = [FakeTask("app://bundle/ten.txt"), FakeTask("app://bundle/ten.txt?2")]
        var largestUnconfirmed: Int64 = 0
        for task in tasks {
            task.onSend = { largestUnconfirmed = max(largestUnconfirmed, gate.unconfirmedBytes) }
            driver.start(task, viewURL: Self.page, gate: gate)
        }
        await driver.settled()
        for task in tasks {
            #expect(task.body == Data("0123456789".utf8))
            #expect(task.finishedOnce)
        }
        #expect(largestUnconfirmed <= 8, "unconfirmed bytes at a send: \(largestUnconfirmed)")
        #expect(barriersSent >= 2, "20 bytes through a budget of 8 need barriers: \(barriersSent)")
    }

    @Test(
        "a task stopped while a barrier is pending gets nothing more, and its file is closed",
        .timeLimit(.minutes(1)))
    func stopWhileWaiting() async throws {
        let (tree, driver) = try Self.setup(chunkBytes: 4)
        _ = tree
        let barriers = HeldBarriers()
        let gate = DeliveryGate(budget: 4, stallInterval: .seconds(3600)) { await barriers.wait() }
        let task = FakeTask("app://bundle/ten.txt")
        driver.start(task, viewURL: Self.page, gate: gate)
        await barriers.arrival()
        #expect(task.body.count == 4, "the first chunk filled the budget")
        let before = task.events
        driver.stop(task)
        barriers.answerAll()
        await driver.settled()
        #expect(task.events == before, "nothing after the stop")
        #expect(driver.filesOpened == driver.filesClosed)
    }

    @Test(
        "at most maxOpen tasks have their file open; the next is opened when one ends, and a stopped waiting one never is",
        .timeLimit(.minutes(1)))
    func openFilesAreCapped() async throws {
        let tree = try AssetPathTests.Tree()
        try Data("0123456789".utf8).write(to: tree.root.appendingPathComponent("ten.txt"))
        let driver = AssetSchemeDriver(folder: try AssetFolder(directory: tree.root), chunkBytes: 4, maxOpen: 2)
        let barriers = HeldBarriers()
        let gate = DeliveryGate(budget: 8, stallInterval: .seconds(3600)) { await barriers.wait() }
        let tasks = (0..<4).map { FakeTask("app://bundle/ten.txt?\($0)") }
        for task in tasks { driver.start(task, viewURL: Self.page, gate: gate) }
        await HeldBarriers.until { gate.waitingCount == 2 }
        #expect(driver.filesOpened == 2, "two slots, both held by tasks waiting for the gate")
        driver.stop(tasks[2])
        let allFinished = { tasks[0].finishedOnce && tasks[1].finishedOnce && tasks[3].finishedOnce }
        while !allFinished() {
            barriers.answerAll()
            await HeldBarriers.until { barriers.count > 0 || allFinished() }
        }
        await driver.settled()
        #expect(driver.filesOpened == 3, "the stopped task's file was never opened")
        #expect(driver.filesClosed == 3)
        #expect(tasks[2].events.isEmpty)
        #expect(tasks[3].body == Data("0123456789".utf8))
    }
}
