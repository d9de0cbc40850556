#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// `onUploadProgress` in real WebKit (found by a front-end developer: a 5-byte Blob saved with
    /// a progress callback reported nothing in 6 of 6 runs, because the task's reply reached the
    /// page before the upload request's answer). Every small value, Blob or typed array, reports
    /// its whole size before the call resolves.
    @MainActor
    @Suite("Binary values: upload progress of small values")
    struct BinaryUploadProgress {
        @Test(
            "small values report {loaded: size, total: size} before the call resolves, every time",
            .timeLimit(.minutes(1)))
        func smallValuesReportTheirEnd() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(
                """
                window.__order = [];
                (async function () {
                  for (var i = 0; i < 12; i++) {
                    var value = i % 2 ? new Blob([pattern(5 + i)]) : pattern(5 + i);
                    var events = [];
                    var data = await WebBridge.call('Save', { file: value }, {
                      onUploadProgress: function (p) { events.push(p.loaded + '/' + p.total); } });
                    events.push('resolved ' + data.bytes);
                    window.__order.push(events.join(' '));
                  }
                })();
                """)
            try await harness.waitFor("window.__order.length === 12", timeout: .seconds(30))
            let order = try await harness.value("window.__order", as: [String].self)
            let expected = (0..<12).map { "\(5 + $0)/\(5 + $0) resolved \(5 + $0)" }
            #expect(order == expected)
            await harness.close()
        }
    }
}
#endif
