import BridgeKit
import Testing

@Suite("Page: message source from frame info")
struct PageMessageSourceFrameTests {
    @Test("An engine-reported origin becomes the same origin the policy compares against")
    func origins() {
        let cases: [(String, String, Int, String?)] = [
            ("https", "app.example", 0, "https://app.example"),
            ("https", "app.example", 443, "https://app.example"),
            ("https:", "App.Example", 8443, "https://app.example:8443"),
            ("HTTP", "localhost", 80, "http://localhost"),
            ("http", "localhost", 8080, "http://localhost:8080"),
            ("https", "[::1]", 0, "https://[::1]"),
            ("app", "bundle", 0, "app://bundle"),
            ("http", "10.0.0.1", -1, "http://10.0.0.1"),
        ]
        for (scheme, host, port, expected) in cases {
            let source = MessageSource(frameProtocol: scheme, host: host, port: port, isMainFrame: true)
            #expect(source.origin?.description == expected)
            #expect(source.isMainFrame)
            if let expected {
                #expect(source == MessageSource.mainFrame(expected))
            }
        }
    }

    @Test("Opaque origins and host-less schemes give no origin; the frame flag is kept")
    func opaque() {
        for (scheme, host) in [("", ""), ("file", ""), ("", "app.example"), ("data", ""), (":", "x"), ("https", "[]")] {
            let source = MessageSource(frameProtocol: scheme, host: host, port: 0, isMainFrame: false)
            #expect(source.origin == nil)
            #expect(!source.isMainFrame)
        }
        let sub = MessageSource(frameProtocol: "https", host: "ads.example", port: 0, isMainFrame: false)
        #expect(sub == MessageSource.subframe("https://ads.example"))
    }
}
