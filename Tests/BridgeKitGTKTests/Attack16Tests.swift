#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests {
    /// Attack 16: the user agent of an application name without a version.
    @MainActor
    @Suite("Attack 16 user agent")
    struct Attack16UserAgent {
        /// GTKWebViewCore treats an empty version as none (appends the name alone), and
        /// ApplicationToken(name:version:) documents "nil or empty for none"; but GTKWebView.init
        /// validates `name + "/" + version` = "ShopApp/" and throws, so the view is never made.
        @Test("A16-UA an empty application version appends the name alone", .timeLimit(.minutes(1)))
        func emptyVersionAppendsName() throws {
            let plain = try GTKWebView()
            let base = try #require(plain.userAgent)
            plain.close()
            let view: GTKWebView
            do {
                view = try GTKWebView(configuration: .init(applicationName: "ShopApp", applicationVersion: ""))
            } catch {
                Issue.record("an empty version was refused: \(error)")
                return
            }
            defer { view.close() }
            #expect(view.userAgent == base + " ShopApp")
        }
    }
}
#endif
