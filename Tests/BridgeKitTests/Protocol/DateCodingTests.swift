import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// `Date` crosses the bridge as JavaScript writes it (`Date.prototype.toJSON`: an ISO 8601 string
/// with milliseconds, UTC), not as Foundation's default (seconds since 2001, which a page's
/// `new Date(x)` reads as January 1970).
@Suite("Dates cross as the page writes and reads them")
struct DateCodingTests {
    struct Stamp: Codable, Sendable, Equatable { var at: Date }

    @Test("a Date in a result reaches the page as new Date() reads it: ISO 8601 with milliseconds, UTC")
    func encode() throws {
        let text = String(
            decoding: try BridgeJSON.encode(Stamp(at: Date(timeIntervalSince1970: 1_700_000_000.25))), as: UTF8.self)
        #expect(text == #"{"at":"2023-11-14T22:13:20.250Z"}"#)
    }

    @Test(
        "a page's date decodes: JSON.stringify's ISO string, one without milliseconds or in another zone, and Date.now()'s milliseconds",
        arguments: [
            (#"{"at":"2023-11-14T22:13:20.250Z"}"#, 1_700_000_000.25),
            (#"{"at":"2023-11-14T22:13:20Z"}"#, 1_700_000_000),
            (#"{"at":"2023-11-14T23:13:20.000+01:00"}"#, 1_700_000_000),
            (#"{"at":1700000000250}"#, 1_700_000_000.25),
        ])
    func decode(text: String, seconds: Double) throws {
        let stamp = try BridgeJSON.decode(Stamp.self, from: Data(text.utf8))
        #expect(abs(stamp.at.timeIntervalSince1970 - seconds) < 0.0005, "\(text): \(stamp.at.timeIntervalSince1970)")
    }

    @Test("a value that is no date is invalid_options at its path, through a task")
    func refused() async throws {
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["https://app.example"])))
        try router.register(ClosureTask(name: "stamp") { (options: Stamp, _: CallContext) in options })
        let page = InMemoryPage(router: router)
        let bad = await page.call("stamp", options: ["at": "yesterday"])
        #expect(bad["error"]?.string("code") == "invalid_options")
        #expect(bad["error"]?["details"]?.string("path") == "at")
        let good = await page.call("stamp", options: ["at": "2023-11-14T22:13:20.250Z"])
        #expect(good["data"] == ["at": "2023-11-14T22:13:20.250Z"])
    }
}
