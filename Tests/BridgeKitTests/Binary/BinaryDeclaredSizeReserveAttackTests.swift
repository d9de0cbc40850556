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

    /// The process's memory cannot show this reliably (other suites run meanwhile; in the GTK test
    /// process WebKit and JavaScriptCore map tens of GiB as they start), so the rule itself is
    /// checked: before the bytes arrive, `data(of:)` reserves at most one part, whatever the page
    /// declared.
    @Test(
        "data(of:) reserves at most one part before the bytes arrive, whatever the page declared",
        arguments: [nil, 0, 10, 1 << 20, 1 << 30, Int.max])
    func reservationIsAtMostOnePart(_ declared: Int?) {
        let limits = BinaryLimits()
        let reserved = BinaryTransfers.reservation(declaredSize: declared, limits: limits)
        #expect(reserved >= 0 && reserved <= limits.partBytes)
        #expect(reserved == min(declared ?? 0, limits.partBytes))
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
