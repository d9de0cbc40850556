#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A page that sends its own upload against the rules of the byte transport (docs/protocol.md,
    /// "Upload in parts"): each part brings bytes, so each offset is used once and an upload that
    /// brings nothing cannot hold its call open; a value over the part size goes in parts, so the
    /// app's process holds one part at a time. Found by attacking the transport in WebKitGTK.
    @MainActor
    @Suite("Binary upload rules under attack")
    struct BinaryUploadRuleAttack {
        static let helpers = """
            var U = 'webbridge-binary://transfer/';
            function tok() { var b = new Uint8Array(16); crypto.getRandomValues(b); return Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join(''); }
            function post(url, body) {
              return sendBytes(url, {method: 'POST', body: body}).then(function (r) {
                return r.text().then(function (t) { return r.status + ':' + t; }); }, function (e) { return 'error ' + e; });
            }
            """

        /// Empty parts at offset 0, one after the other: before, each was answered 200 and
        /// restarted the task's claim wait, so the call never settled. Now the first one ends the
        /// upload (the value ended short of its size) and the call settles at once.
        @Test(
            "an empty part ends its upload at once: 400 invalid_options, and the call settles",
            .timeLimit(.minutes(1)))
        func emptyPartsEndTheUpload() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 2, claimWait: 1))
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                \(Self.helpers)
                var t = tok(); window.__answers = [];
                e2eCall('empty', 'Save', {file: {'$bridgeBinary': {token: t, size: 8}}});
                var n = 0;
                (function again() {
                  if (n++ >= 3) { window.__doneSending = true; return; }
                  post(U + t + '?offset=0', new Uint8Array(0)).then(function (a) {
                    window.__answers.push(a); setTimeout(again, 100); });
                })();
                """)
            try await harness.waitFor("window.__doneSending === true", timeout: .seconds(20))
            let answers = try await harness.value("window.__answers", as: [String].self)
            #expect(answers.count == 3)
            #expect(
                answers.allSatisfy { $0.hasPrefix("400:") && $0.contains("invalid_options") },
                "every empty part is refused; the upload ended with the first: \(answers)")
            try await harness.waitForSettled(["empty"])
            let outcome = try await harness.outcome("empty")
            #expect(!outcome.ok && outcome.code == "invalid_options", "\(outcome)")
            await harness.close()
        }

        /// A value 64 times the app's part size (64 KiB here) sent as one whole body: before, the
        /// task got all 4 MiB from one request, which WebKitGTK hands the app whole.
        @Test("a whole body over the app's part size is refused: 413 part_too_large", .timeLimit(.minutes(1)))
        func wholeBodyOverPartSize() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(chunkBytes: 64 << 10, requestWait: 3, claimWait: 5))
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                \(Self.helpers)
                var t = tok();
                e2eCall('whole', 'Save', {file: {'$bridgeBinary': {token: t, size: 4194304}}});
                post(U + t, new Uint8Array(4194304)).then(function (a) { window.__whole = a; });
                """)
            try await harness.waitForSettled(["whole"])
            try await harness.waitFor("window.__whole !== undefined")
            let answer = try await harness.value("window.__whole", as: String.self)
            let outcome = try await harness.outcome("whole")
            #expect(answer.hasPrefix("413:") && answer.contains("part_too_large"), "\(answer)")
            #expect(!outcome.ok && outcome.code == "payload_too_large", "\(outcome)")
            await harness.close()
        }
    }
}
#endif
