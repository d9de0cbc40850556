#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Large uploads in parts (`?offset=`, of the app's part size, one after the other) in real WebKitGTK.
    @MainActor
    @Suite("Binary values in parts")
    struct BinaryParts {
        @Test(
            "a 5 MiB typed array and a 3.5 MiB Blob arrive whole through parts of the app's size (64 KiB, then 1 MiB), with progress per part",
            .timeLimit(.minutes(1)))
        func largeUploads() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let (harness, records) = (scene.harness, scene.records)
            try await scene.load()
            try await harness.run(
                """
                var big = pattern(5 * 1048576 + 11);
                window.__parts = [];
                e2eCall('view', 'Save', {file: big.subarray(11)}, {onUploadProgress: function (p) { window.__parts.push(p.loaded); }});
                var blobBytes = pattern(3.5 * 1048576);
                e2eCall('blob', 'Save', {file: new Blob([blobBytes], {type: 'application/pdf'})});
                window.__expect = {view: sum(big.subarray(11)), blob: sum(blobBytes)};
                """)
            try await harness.waitForSettled(["view", "blob"])
            let view = try await harness.outcome("view")
            #expect(view.ok)
            #expect(view.data?["bytes"] == .int(5 * 1_048_576))
            #expect(try await harness.isTrue("window.__settled.view.data.sum === window.__expect.view"))
            let parts = try await harness.value("window.__parts", as: [Int].self)
            // One progress per part answered before the reply settled the call (the last part's
            // answer and the reply race; progress after the call settled is not reported).
            // The first part is 64 KiB (the page does not know the app's part size yet); its answer
            // tells the app's (BinaryLimits.partBytes, 1 MiB by default), which the others take.
            let expected = (0..<5).map { 65_536 + $0 * 1_048_576 } + [5_242_880]
            #expect(parts.count >= 5 && parts == Array(expected.prefix(parts.count)), "\(parts)")
            let blob = try await harness.outcome("blob")
            #expect(blob.ok)
            #expect(blob.data?["bytes"] == .int(3_670_016))
            #expect(blob.data?["type"] == "application/pdf")
            #expect(try await harness.isTrue("window.__settled.blob.data.sum === window.__expect.blob"))
            #expect(records.list.map(\.outcome) == [.finished, .finished])
            await harness.close()
        }

        @Test(
            "parts through WebKit's scheme handler: a part out of order is refused 409 and ends the upload at once; the call fails invalid_options, a later part is told so",
            .timeLimit(.minutes(1)))
        func partsChecked() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(requestWait: 20, claimWait: 20))
            defer { scene.stop() }
            // Long waits: the refusal must end the call without waiting for any of them.
            let (harness, records) = (scene.harness, scene.records)
            try await scene.load()
            let clock = ContinuousClock()
            let start = clock.now
            // The page writes the placeholder itself, so it knows the token and sends the parts by hand.
            try await harness.run(
                """
                var token = 'b1b2c3d4e5f60718293a4b5c6d7e8f90';
                var url = 'webbridge-binary://transfer/' + token;
                e2eCall('save', 'Save', {file: {'$bridgeBinary': {token: token, size: 6}}});
                function post(offset, bytes) {
                  return sendBytes(url + '?offset=' + offset, {method: 'POST', body: new Uint8Array(bytes)}).then(
                    function (r) { return r.json().then(function (j) { return r.status + ':' + j.code; }); },
                    function () { return 'error'; });
                }
                window.__statuses = [];
                (async function () {
                  window.__statuses.push(await post(3, [4, 5, 6]));
                  window.__statuses.push(await post(0, [1, 2, 3]));
                  window.__done = true;
                })();
                """)
            try await harness.waitFor("window.__done === true")
            try await harness.waitForSettled(["save"])
            #expect(clock.now - start < .seconds(10), "the refusal ended the call, not the claim wait")
            #expect(
                try await harness.value("window.__statuses", as: JSONValue.self)
                    == ["409:invalid_options", "400:invalid_options"])
            let save = try await harness.outcome("save")
            #expect(!save.ok)
            #expect(save.code == "invalid_options")
            #expect(records.list.map(\.outcome) == [.failed("invalid_options")])
            await harness.close()
        }

        @Test(
            "the page takes the app's part size: with BinaryLimits(chunkBytes: 256 KiB) a 1 MiB value goes in 64 KiB + 256 KiB parts",
            .timeLimit(.minutes(1)))
        func appPartSize() async throws {
            let scene = try BinaryScene(limits: BinaryLimits(chunkBytes: 256 << 10, requestWait: 5, claimWait: 10))
            defer { scene.stop() }
            let (harness, records) = (scene.harness, scene.records)
            try await scene.load()
            try await harness.run(
                """
                var big = pattern(1048576);
                window.__parts = [];
                e2eCall('view', 'Save', {file: big}, {onUploadProgress: function (p) { window.__parts.push(p.loaded); }});
                window.__expect = sum(big);
                """)
            try await harness.waitForSettled(["view"])
            let view = try await harness.outcome("view")
            #expect(view.ok)
            #expect(view.data?["bytes"] == .int(1_048_576))
            #expect(try await harness.isTrue("window.__settled.view.data.sum === window.__expect"))
            let parts = try await harness.value("window.__parts", as: [Int].self)
            let expected = (0..<4).map { 65_536 + $0 * 262_144 } + [1_048_576]
            #expect(parts.count >= 4 && parts == Array(expected.prefix(parts.count)), "\(parts)")
            #expect(records.list.map(\.outcome) == [.finished])
            await harness.close()
        }
    }
}
#endif
