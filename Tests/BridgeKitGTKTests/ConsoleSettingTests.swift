#if WebKitGTK
@testable import BridgeKitGTK
import CWebKitGTK
import Testing

extension GTKWrapperTests {
    /// A new user's trial: a headless app had no way to see its page's console output.
    @MainActor
    @Suite("Console output setting")
    struct ConsoleSetting {
        @Test("writesConsoleToStandardOutput reaches WebKit's setting; off by default", .timeLimit(.minutes(1)))
        func consoleSetting() throws {
            func written(_ configuration: GTKWebViewConfiguration) throws -> Bool? {
                let view = try GTKWebView(configuration: configuration)
                defer { finish(view) }
                return view.withOpenCore { core in
                    webkit_settings_get_enable_write_console_messages_to_stdout(
                        webkit_web_view_get_settings(core.webView)) != 0
                }
            }
            #expect(try written(GTKWebViewConfiguration()) == false)
            #expect(try written(GTKWebViewConfiguration(writesConsoleToStandardOutput: true)) == true)
        }
    }
}
#endif
