import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: memory sized by what the page declares, before the page has sent anything.
/// `BinaryTransfers.data(of:context:)` reserved the page-declared `size` before a byte arrived
/// (and before `upload(of:)` compared it with `BinaryLimits.maxTransferBytes`): a declared 2^62
/// made Foundation trap, and declared 1 GiB values that never came held 1 GiB of address space a
/// call, as many calls as `maxPendingCalls` allows (found by attacking the byte transport).
@Suite("Attack: declared sizes reserved before any byte", .serialized)
struct BinaryDeclaredSizeReserveAttackTests {
    struct Options: Decodable, Sendable { var file: BridgeBinary }

    /// A field of /proc/self/status, in bytes (Linux).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits =
                line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return 0
    }

    @Test(
        "16 calls declaring 1 GiB values that never come do not make the app allocate 16 GiB",
        .timeLimit(.minutes(1)))
    func declaredSizesAreNotReserved() async throws {
        let started = Mutex(0)
        let box = Mutex<BinaryTransfers?>(nil)
        let collect = ClosureTask(name: "Collect") { (options: Options, context: CallContext) -> Int in
            guard let transfers = box.withLock({ $0 }) else { throw BridgeError.unavailable() }
            started.withLock { $0 += 1 }
            return try await transfers.data(of: options.file, context: context).count
        }
        let (page, transfers, _, _) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(requestWait: 5, claimWait: 5), extra: [collect])
        box.withLock { $0 = transfers }
        let before = Self.status("VmSize")
        let rssBefore = Self.status("VmRSS")
        var ids: [String] = []
        for _ in 0..<16 {
            let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 1 << 30)
            ids.append(try #require(page.send("Collect", options: ["file": placeholder])))
        }
        #expect(await eventually { started.withLock { $0 } == 16 })
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(200))
            print(
                "declared-size reserve: VmSize \(Self.status("VmSize") >> 20) MiB (before \(before >> 20)), open transfers \(transfers.openTransfers), pending \(page.router.pendingCountsForTesting.calls)"
            )
        }
        let grown = Self.status("VmSize") - before
        let rssGrown = Self.status("VmRSS") - rssBefore
        print("declared-size reserve: virtual +\(grown >> 20) MiB, resident +\(rssGrown >> 20) MiB")
        // 16 GiB reserved before the fix; the threshold leaves room for what the rest of the
        // process does meanwhile (other suites run in parallel: threads, malloc arenas).
        #expect(grown < 4 << 30, "the app reserved \(grown >> 20) MiB for bytes the page never sent")
        for id in ids { page.cancel(id) }
    }

    /// One call whose placeholder declares 2^62 bytes: `data(of:)` reserves the declared size before
    /// `upload(of:)` compares it with `maxTransferBytes`, and Foundation traps when the allocation
    /// fails. Expected: `payload_too_large`, as `upload(of:)` answers for such a size.
    @Test("a declared size over maxTransferBytes is refused payload_too_large by data(of:)", .timeLimit(.minutes(1)))
    func hugeDeclaredSize() async throws {
        let box = Mutex<BinaryTransfers?>(nil)
        let collect = ClosureTask(name: "Collect") { (options: Options, context: CallContext) -> Int in
            guard let transfers = box.withLock({ $0 }) else { throw BridgeError.unavailable() }
            return try await transfers.data(of: options.file, context: context).count
        }
        let (page, transfers, _, _) = try BinaryTransfersTests.fixture(
            limits: BinaryLimits(requestWait: 5, claimWait: 5), extra: [collect])
        box.withLock { $0 = transfers }
        let (placeholder, _) = InMemoryBinaryTransport.placeholder(size: 1 << 62)
        let reply = await page.call("Collect", options: ["file": placeholder])
        #expect(reply["error"]?.string("code") == "payload_too_large", "\(reply)")
    }
}
