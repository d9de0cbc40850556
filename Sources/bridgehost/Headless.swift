import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts bridgehost again under `xvfb-run -a` when there is no display, so it runs headless on a
/// server or in CI without any set-up. Does nothing when a display exists or when
/// `BRIDGEHOST_NO_XVFB` is set (the child sets it, so this never loops).
enum Headless {
    static func reexecUnderXvfbIfNeeded() {
        let environment = ProcessInfo.processInfo.environment
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard !hasDisplay, environment["BRIDGEHOST_NO_XVFB"] == nil else { return }
        setenv("BRIDGEHOST_NO_XVFB", "1", 1)
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let arguments = ["xvfb-run", "-a", executable] + CommandLine.arguments.dropFirst()
        var cArguments = arguments.map { strdup($0) } + [nil]
        execvp("xvfb-run", &cArguments)
        // Only reached when xvfb-run cannot be started.
        FileHandle.standardError.write(
            Data("bridgehost: no display and xvfb-run is not available (install xvfb: scripts/setup)\n".utf8))
        exit(2)
    }
}
