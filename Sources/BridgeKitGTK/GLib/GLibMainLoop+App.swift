#if WebKitGTK
import Foundation

extension GLibMainLoop {
    /// Runs a GTK app that uses BridgeKit: starts GTK on the process main thread, runs the GLib
    /// main loop (in which main-actor tasks, WebKit and the bridge all run) until `main` returns,
    /// and gives the exit status to pass to `exit(_:)`.
    ///
    /// Call it from a synchronous `main.swift` (no top-level `await`):
    ///
    /// ```swift
    /// exit(GLibMainLoop.shared.runApp {
    ///     let window = try GTKWindow(title: "Shop")
    ///     // … a web view, a WebKitGTKBridgeHost, window.setContent(view), window.present() …
    ///     await window.closeRequested()
    ///     await host.close()
    ///     window.close()
    ///     return 0
    /// })
    /// ```
    ///
    /// - Parameter main: the app's work, on the main actor (the GTK thread) while the loop runs.
    /// - Returns: what `main` returned; 1 when it threw (the error is written to standard error,
    ///   prefixed with the program name); 2 when GTK cannot open a display or the caller is not
    ///   the process main thread before any `async` main (``GLibMainLoopError``).
    public func runApp(_ main: @escaping @MainActor () async throws -> Int32) -> Int32 {
        let program = (CommandLine.arguments.first as NSString?)?.lastPathComponent ?? "app"
        do {
            return try runUntilComplete(main)
        } catch let error as GLibMainLoopError {
            let hint = error == .displayUnavailable ? " (no display: run under `xvfb-run -a`, or set DISPLAY)" : ""
            FileHandle.standardError.write(Data("\(program): \(error)\(hint)\n".utf8))
            return 2
        } catch GTKWebViewError.displayUnavailable {
            FileHandle.standardError.write(
                Data("\(program): displayUnavailable (no display: run under `xvfb-run -a`, or set DISPLAY)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
            return 1
        }
    }
}
#endif
