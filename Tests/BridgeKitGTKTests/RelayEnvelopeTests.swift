#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import Foundation
import Testing

/// What the relay posts, read without a web view: the one-string form (`js/webbridge-relay.js`,
/// docs/protocol.md "Relay") and the origin cache. The end-to-end suites cover both forms through
/// the real relay.
@MainActor
@Suite("Relay envelope")
struct RelayEnvelopeTests {
    private static func text(_ body: MessageBody) -> String? {
        if case .string(let text) = body { return text }
        return nil
    }

    @Test(
        "one string: frame and origin from the header line, the body is everything after the first line feed",
        .timeLimit(.minutes(1)))
    func oneString() throws {
        let body = #"{"v":1,"kind":"call","id":"a-1","task":"t","options":"x\ny"}"# + "\nmain http://evil.example\n"
        let main = try #require(BridgeKitGTK.RelayEnvelope.parse(oneString: "main https://app.example:8443\n" + body))
        #expect(main.origin == "https://app.example:8443")
        #expect(main.mainFrame)
        #expect(Self.text(main.body) == body, "the body unchanged, line feeds and a fake header line included")

        let sub = try #require(BridgeKitGTK.RelayEnvelope.parse(oneString: "sub null\n{}"))
        #expect(sub.origin == "null")
        #expect(!sub.mainFrame)
        #expect(Self.text(sub.body) == "{}")
        #expect(
            sub.source(using: SecurityOriginCache()) == MessageSource(origin: nil, isMainFrame: false),
            "an opaque origin is nil")

        let empty = try #require(BridgeKitGTK.RelayEnvelope.parse(oneString: "main https://a.example\n"))
        #expect(Self.text(empty.body) == "", "an empty body is the router's to refuse")
        #expect(
            BridgeKitGTK.RelayEnvelope.parse(oneString: "main https://a.example\n✓ Grüße").map { Self.text($0.body) }
                == "✓ Grüße")
    }

    @Test(
        "one string: anything but \"main\" or \"sub\", a space and a line feed is no envelope", .timeLimit(.minutes(1)),
        arguments: [
            "", "main", "main https://a.example", "https://a.example\n{}", "top https://a.example\n{}",
            "Main https://a.example\n{}", "mainhttps://a.example\n{}", "{\"v\":1}",
        ])
    func notAnEnvelope(_ text: String) {
        #expect(BridgeKitGTK.RelayEnvelope.parse(oneString: text) == nil)
    }

    @Test(
        "the origin cache answers what SecurityOrigin parses, for every origin, before and after it is full",
        .timeLimit(.minutes(1)))
    func originCache() {
        let cache = SecurityOriginCache()
        let origins =
            ["https://App.Example:443", "null", "not an origin", "http://[::1]:8080", "https://a.example/path"]
            + (0..<SecurityOriginCache.capacity).map { "https://f\($0).example" }
        for _ in 0..<2 {
            for origin in origins {
                #expect(cache.origin(serialized: origin) == SecurityOrigin(origin), "\(origin)")
            }
        }
        #expect(cache.origin(serialized: "https://app.example") == SecurityOrigin(scheme: "https", host: "app.example"))
    }
}
#endif
