#if WebKitGTK
@testable import BridgeKitGTK

/// A web view with BridgeKitGTK's console forwarding (`GTKConsoleOutput.install(on:receive:)`),
/// keeping the lines it would write instead of writing them. Close it with `finish(view)`.
@MainActor
final class ConsoleLinesView {
    let view: GTKWebView
    /// Every line written so far, in order.
    private(set) var lines: [String] = []

    init() throws {
        view = try GTKWebView()
        try GTKConsoleOutput.install(on: view) { [weak self] in self?.lines.append(GTKConsoleOutput.line(for: $0)) }
    }

    /// Loads `script` in a page of https://app.example/ and waits for its first line.
    /// - Returns: that line, or `""` when none came within `waitUntil`'s time.
    func firstLine(running script: String) throws -> String {
        try view.loadHTML("<script>\n\(script)\n</script>", baseURI: "https://app.example/")
        _ = waitUntil { !lines.isEmpty }
        return lines.first ?? ""
    }
}
#endif
