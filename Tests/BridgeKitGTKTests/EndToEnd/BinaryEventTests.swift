#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Plain `Data` in an app's event, in real WebKitGTK: the page's listeners get `Uint8Array`s
    /// with the exact bytes, in the order the app emitted its events, for the document of the
    /// origin the router's policy admits; another origin's document gets base64 text and no download
    /// (issue 26, item 1; before, an event's `Data` always reached the page as base64 text).
    @MainActor
    @Suite("Binary values in events")
    struct BinaryEvents {
        /// The page's listener: each event's data, a `Uint8Array` as `{bytes: length, sum}`.
        static let listen = """
            window.__photos = [];
            WebBridge.on('photo', function (d) {
              window.__photos.push(d instanceof Uint8Array ? {bytes: d.length, sum: sum(d)} : d);
            });
            """

        @Test(
            "Data in events reaches the listeners as Uint8Arrays with their exact bytes, in the order emitted; the held bytes are given back",
            .timeLimit(.minutes(1)))
        func bytesInOrder() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            try await scene.load()
            try await harness.run(Self.listen)
            let large = 1_048_576 + 3
            try await harness.router.emit("photo", data: Data([1, 2, 3]))
            try await harness.router.emit("photo", data: "plain")
            try await harness.router.emit("photo", data: Data(repeating: 7, count: large))
            try await harness.router.emit(
                "photo", data: BinaryDataDownload.Holding(name: "n", file: Data([4, 5]), parts: [Data()]))
            try await harness.waitFor("window.__photos.length === 4")
            let seen = try await harness.json("window.__photos")
            #expect(
                try await harness.isTrue(
                    """
                    (function () { var e = window.__photos;
                      return e[0].bytes === 3 && e[0].sum === 6 && e[1] === 'plain'
                        && e[2].bytes === \(large) && e[2].sum === \(7 * large % 65521)
                        && e[3].name === 'n' && e[3].file instanceof Uint8Array && e[3].file.join() === '4,5'
                        && e[3].parts[0] instanceof Uint8Array && e[3].parts[0].length === 0; })()
                    """), "\(seen)")
            #expect(await eventually { harness.transfers?.heldBytes == 0 }, "every download was read")
            // Nobody listens: the page gives the bytes back at once (not at their 60 s expiry).
            let ended = scene.records.list.count
            try await harness.router.emit("unheard", data: Data(count: 4096))
            #expect(
                await eventually { scene.records.list.count == ended + 1 && harness.transfers?.heldBytes == 0 },
                "the unread download was given back")
            #expect(scene.records.list.last?.outcome == .cancelled, "\(scene.records.list)")
            await harness.close()
        }

        /// Found by an attack: the reply of a task that emitted a large `Data` event settled the
        /// call before the event reached its listeners (the event's bytes were still being read).
        @Test(
            "a task's event with 8 MiB of bytes reaches the listeners before the task's reply settles the call",
            .timeLimit(.minutes(1)))
        func eventBeforeReply() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            let router = harness.router
            try router.register(
                ClosureTask(name: "Shoot") { (_: NoOptions, _: CallContext) -> String in
                    try await router.emit("photo", data: "before")
                    try await router.emit("photo", data: Data(repeating: 7, count: 8 << 20))
                    try await router.emit("photo", data: "after")
                    return "done"
                })
            try await scene.load()
            try await harness.run(
                Self.listen
                    + """
                    WebBridge.call('Shoot').then(function (v) {
                      window.__photos.push('reply ' + v);
                      window.__order = JSON.stringify(window.__photos);
                    });
                    """)
            try await harness.waitFor("typeof window.__order === 'string'")
            let order = try await harness.value("window.__order", as: String.self)
            let sum = 7 * (8 << 20) % 65521
            #expect(order == #"["before",{"bytes":8388608,"sum":\#(sum)},"after","reply done"]"#)
            await harness.close()
        }

        @Test(
            "another origin's document gets an event's Data as base64 text and no download is held for it; the next document, of the allowed origin, gets bytes",
            .timeLimit(.minutes(1)))
        func otherOrigin() async throws {
            let scene = try BinaryScene()
            defer { scene.stop() }
            let harness = scene.harness
            scene.b.routes["/"] = .init(body: Binary.page)
            try await harness.load(scene.b.origin + "/")
            try await harness.run(Self.listen)
            try await harness.router.emit("photo", data: Data([1, 2, 3]))
            try await harness.waitFor("window.__photos.length === 1")
            #expect(try await harness.json("window.__photos[0]") == "AQID")
            #expect(harness.transfers?.heldBytes == 0)
            // A navigation to the allowed origin: its notice brings its origin.
            try await harness.load(scene.a.origin + "/")
            try await harness.run(Self.listen)
            try await harness.router.emit("photo", data: Data([1, 2, 3]))
            try await harness.waitFor("window.__photos.length === 1")
            #expect(try await harness.isTrue("window.__photos[0].bytes === 3 && window.__photos[0].sum === 6"))
            await harness.close()
        }
    }
}
#endif
