import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: the shim's `encodeCall` (js/webbridge.js) and the native fast scan drift apart,
/// so that every call silently takes the general path (a performance fault no other test sees).
/// The shim writes `{"v":1,"kind":"call","id":…,"task":…,"options":…}`; the protocol fixture of a
/// call is the shim's exact output (js/test/fixtures.test.js checks that).
@Suite("Call envelope scan: the shim's key order is the one the fast scan reads in one comparison")
struct CallEnvelopeScanTests {
    /// The body the shim posts for the protocol fixture `call.json`: its message, with the keys in
    /// the order `encodeCall` writes them.
    static func shimBody() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/protocol/call.json")
        let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let message = try #require(fixture?["message"] as? [String: Any])
        let keys = ["v", "kind", "id", "task", "options"]
        #expect(Set(message.keys) == Set(keys), "the fixture call has exactly the keys encodeCall writes")
        let members = try keys.map { key in
            let value = try JSONSerialization.data(
                withJSONObject: try #require(message[key]), options: [.fragmentsAllowed])
            return "\"\(key)\":" + String(decoding: value, as: UTF8.self)
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test("a body in encodeCall's key order starts with the shim prefix and scans")
    func shimOrder() throws {
        let body = Array(try Self.shimBody().utf8)
        #expect(body.withUnsafeBufferPointer { CallEnvelopeScan.startsWithShimPrefix($0) })
        let scan = body.withUnsafeBufferPointer { CallEnvelopeScan($0) }
        #expect(scan?.task != nil)
        #expect(String(describing: CallEnvelopeScan.shimPrefix) == #"{"v":1,"kind":"call","#)
    }

    @Test("another key order still scans, without the prefix shortcut")
    func otherOrder() {
        let body = Array(#"{"kind":"call","v":1,"task":"t","id":"a-1","options":{}}"#.utf8)
        #expect(!body.withUnsafeBufferPointer { CallEnvelopeScan.startsWithShimPrefix($0) })
        let scan = body.withUnsafeBufferPointer { CallEnvelopeScan($0) }
        #expect(scan?.id == "a-1" && scan?.task == "t")
    }
}
