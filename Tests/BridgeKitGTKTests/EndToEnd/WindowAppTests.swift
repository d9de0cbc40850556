#if WebKitGTK
import BridgeKitGTK
import CWebKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The complete Linux window app of docs/integration-linux.md (`examples/WindowApp`), run as
    /// a child process on the test's X display (issue 24 item 2).
    @MainActor
    @Suite("Window app")
    struct WindowApp {
        /// What a screenshot of the X screen shows.
        struct Screenshot: Sendable {
            var width = 0
            var height = 0
            /// Pixels of the page's blue (#1e6fd9, with tolerance for an 8-bit visual).
            var bluePixels = 0
            /// Distinct colours, counted up to 64.
            var colours = 0
        }

        /// Takes a screenshot of the whole X screen (`gdk_pixbuf_get_from_window` on the root
        /// window) on the GTK thread and summarises it.
        static func screenshot() throws -> Screenshot {
            try GLibMainLoop.shared.performOnGTKThread { () -> Screenshot in
                var shot = Screenshot()
                guard let root = gdk_get_default_root_window() else { return shot }
                let width = gdk_window_get_width(root)
                let height = gdk_window_get_height(root)
                guard let pixbuf = gdk_pixbuf_get_from_window(root, 0, 0, width, height) else { return shot }
                defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
                shot.width = Int(width)
                shot.height = Int(height)
                let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
                let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
                guard let pixels = gdk_pixbuf_get_pixels(pixbuf) else { return shot }
                var seen = Set<UInt32>()
                for y in Swift.stride(from: 0, to: Int(height), by: 2) {
                    for x in Swift.stride(from: 0, to: Int(width), by: 2) {
                        let p = pixels + y * stride + x * channels
                        let (r, g, b) = (Int(p[0]), Int(p[1]), Int(p[2]))
                        if b > 150, b > r + 80, b > g + 40 { shot.bluePixels += 4 }
                        if seen.count < 64 { seen.insert(UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)) }
                    }
                }
                shot.colours = seen.count
                return shot
            }
        }

        @Test(
            "the example window app shows its page on screen (screenshot not blank) and closes cleanly on SIGTERM",
            .timeLimit(.minutes(1)))
        func showsPageAndClosesCleanly() async throws {
            let before = try Self.screenshot()
            let app = try ToolProcess("bridgekit-window-example", [])
            #expect(await app.waitForOutput("window-app: page loaded"))
            // The page paints shortly after the load: poll the screen for its colour.
            var shot = Screenshot()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                shot = try Self.screenshot()
                if shot.bluePixels > 200_000 { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(shot.width > 0 && shot.height > 0)
            #expect(before.bluePixels < 10_000, "the screen had no page before the app ran")
            #expect(shot.bluePixels > 200_000, "the 800 x 600 window shows the page's blue (\(shot.bluePixels) pixels)")
            #expect(shot.colours > 2, "not blank: \(shot.colours) colours")
            app.process.terminate()
            let outcome = await app.finish()
            #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
            #expect(outcome.stdout.contains("window-app: closed cleanly"))
            #expect(!outcome.stderr.contains("CRITICAL"), "no GTK criticals: \(outcome.stderr)")
        }
    }
}
#endif
