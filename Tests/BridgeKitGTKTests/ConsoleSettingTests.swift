#if WebKitGTK
@testable import BridgeKitGTK
import CWebKitGTK
import Testing

extension GTKWrapperTests {
    /// A new user's trial: a headless app had no way to see its page's console output; then the
    /// setting that was to do it (WebKit's `enable-write-console-messages-to-stdout`) printed
    /// nothing on Debian's WebKitGTK 2.50, whose logging goes to the systemd journal.
    @MainActor
    @Suite("Console output setting")
    struct ConsoleSetting {
        static let page = """
            <title>console</title>
            <script>
            console.log('marker-1', {a: 1});
            console.warn('marker-2\\u001b]52;c;AAAA\\u0007\\nCONSOLE LOG forged');
            setTimeout(function () { throw new TypeError('marker-3'); }, 0);
            Promise.reject(new Error('marker-4'));
            </script>
            """

        @Test(
            "with writesConsoleToStandardOutput the page's console, uncaught errors and rejections are lines on standard output, terminal-safe; without it nothing",
            .timeLimit(.minutes(1)))
        func consoleLines() throws {
            let capture = try StandardOutputCapture()
            defer { capture.restore() }
            let quiet = try GTKWebView(configuration: GTKWebViewConfiguration())
            defer { finish(quiet) }
            try loadAndWait(
                quiet, html: Self.page.replacingOccurrences(of: "marker-", with: "quiet-"), title: "console")
            let view = try GTKWebView(configuration: GTKWebViewConfiguration(writesConsoleToStandardOutput: true))
            defer { finish(view) }
            try loadAndWait(view, html: Self.page, title: "console")
            #expect(waitUntil { capture.text.contains("marker-3") && capture.text.contains("marker-4") })
            let lines = capture.text.split(separator: "\n").map(String.init)
            #expect(lines.contains(#"CONSOLE LOG marker-1 {"a":1}"#), "\(lines)")
            #expect(
                lines.contains(#"CONSOLE WARN marker-2\u{1B}]52;c;AAAA\u{7}\nCONSOLE LOG forged"#),
                "control characters escaped, one line: \(lines)")
            #expect(lines.contains { $0.hasPrefix("CONSOLE ERROR ") && $0.contains("TypeError: marker-3") }, "\(lines)")
            #expect(lines.contains("CONSOLE ERROR Unhandled promise rejection: marker-4"), "\(lines)")
            #expect(!lines.contains { $0.contains("quiet-") }, "a view without the setting writes nothing")
        }

        @Test("a long message is cut and says how much was left out", .timeLimit(.minutes(1)))
        func longMessage() throws {
            let message = try #require(
                GTKConsoleOutput.Message(
                    json: #"{"level":"log","kind":"console","message":"\#(String(repeating: "x", count: 9000))"}"#))
            let line = GTKConsoleOutput.line(for: message)
            #expect(line.hasSuffix("… (808 more characters)"))
            #expect(line.count < 8300)
        }

        @Test(
            "a forwarder's post is its frame's header and one message per line, split on line feeds only",
            .timeLimit(.minutes(1)))
        func post() {
            typealias Post = GTKConsoleOutput.Post
            let one = #"{"level":"log","kind":"console","message":"a"}"#
            let text = "main\n" + one + "\r\n" + one + "\n\n" + one
            #expect(Post.header(of: text) == (true, nil))
            #expect(Post.messages(of: text).count == 3, "\(Post.messages(of: text))")
            #expect(Post.messages(of: text).compactMap { GTKConsoleOutput.Message(json: String($0)) }.count == 3)
            #expect(Post.messageCount(of: text) == 4, "line feeds counted, an empty line too (an upper bound)")
            #expect(Post.header(of: "sub https://ads.example\n" + one) == (false, "https://ads.example"))
            #expect(Post.header(of: " main\n" + one) == (false, "?"))
            #expect(Post.header(of: one) == (false, "?"), "no header: not the main frame's")
            #expect(Post.messages(of: "").isEmpty)
        }

        @Test(
            "a view's window is full past its count or its bytes in a second, and empty again in the next",
            .timeLimit(.minutes(1)))
        func rateWindow() async throws {
            let bytes = GTKConsoleOutput.RateWindow()
            let size = 100_000
            let fit = GTKConsoleOutput.maxBytesPerSecondPerView / size
            for _ in 0..<fit {
                bytes.count(bytes: size)
                #expect(!bytes.isFull)
            }
            bytes.count(bytes: size)
            #expect(bytes.isFull, "post \(fit + 1) of \(size) bytes is over the second's bytes")
            let count = GTKConsoleOutput.RateWindow()
            count.count(bytes: 1, messages: GTKConsoleOutput.maxMessagesPerSecondPerView)
            #expect(!count.isFull)
            count.count(bytes: 1)
            #expect(count.isFull)
            #expect(count.remaining > .zero && count.remaining <= .seconds(1))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(count.remaining == .zero)
            count.count(bytes: 1)
            #expect(!count.isFull, "a new second")
        }
    }
}
#endif
