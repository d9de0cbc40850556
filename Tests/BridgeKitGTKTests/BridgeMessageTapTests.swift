#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import Foundation
import Testing

/// What the host's traffic tap (`WebKitGTKBridgeHost.onMessage`, bridgehost's log) reads of an
/// outbound script: the payload, whether the script goes to the page world or is bound to a
/// document (`PageFunction.deliver(toDocument:)`).
@Suite("Traffic tap: outbound payloads")
struct BridgeMessageTapTests {
    static let message = #"{"v":1,"kind":"event","name":"e","data":{"s":"})(x"}}"#

    @Test(
        "the payload of a page-world script and of one bound to a document; nothing of other scripts",
        .timeLimit(.minutes(1)))
    func payloads() throws {
        let page = PageScript.build(calling: .receive, json: Data(Self.message.utf8))
        #expect(GTKBridgeMessage.payload(ofReceiveScript: page) == Self.message)
        let function = try #require(PageFunction.deliver(toDocument: String(repeating: "c", count: 32)))
        let bound = PageScript.build(calling: function, json: Data(Self.message.utf8))
        #expect(GTKBridgeMessage.payload(ofReceiveScript: bound) == Self.message)
        #expect(GTKBridgeMessage.payload(ofReceiveScript: "document.cookie='a=1';void 0") == nil)
    }
}
#endif
