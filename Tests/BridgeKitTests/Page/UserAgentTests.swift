import BridgeKit
import Testing

/// Base user agents of the engines BridgeKit runs on (WebKit's standard user agent, without an
/// application name, plus the iOS form that already ends in `Mobile/<build>`).
private let iPhoneUA =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
private let baseUserAgents = [
    iPhoneUA,
    "Mozilla/5.0 (iPad; CPU OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15",
    "Mobile/15E148",
]

@Suite("Page: user agent")
struct PageUserAgentTests {
    /// Kind of fault: a custom user agent replaced the whole string and lost the WebKit/OS
    /// tokens. Appending must keep every base, for every token; replacing needs its own API.
    @Test("R45 appending a token keeps the whole base user agent; replacing is a separate API")
    func r45AppendKeepsBase() throws {
        #expect(try UserAgent.appending("ShopApp/2.1", to: iPhoneUA) == iPhoneUA + " " + "ShopApp/2.1")
        let tokens = ["ShopApp/2.1", "ShopApp", "ShopApp/2.1 (build 7)", "A/1 B/2"]
        for base in baseUserAgents {
            for token in tokens {
                let result = try UserAgent.appending(token, to: base)
                #expect(result == base + " " + token)
                #expect(result.hasPrefix(base))
                let policy = try UserAgentPolicy.appending(token)
                #expect(policy.effectiveUserAgent(standard: base) == result)
                #expect(policy.replacementUserAgent == nil)
            }
        }
        // On iOS, WebKit sends "<standard> <applicationNameForUserAgent>", whose default is
        // "Mobile/15E148": appending to the application name gives the same full user agent.
        let standard = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"
        let appName = try UserAgentPolicy.appending("ShopApp/2.1").applicationName(appendingTo: "Mobile/15E148")
        #expect(appName == "Mobile/15E148 ShopApp/2.1")
        #expect(standard + " " + (appName ?? "") == iPhoneUA + " ShopApp/2.1")

        // Replacement only through the explicitly named API.
        let replacing = try UserAgentPolicy.replacingEntireUserAgent("Custom/1.0")
        #expect(replacing.effectiveUserAgent(standard: iPhoneUA) == "Custom/1.0")
        #expect(replacing.applicationToken == nil)
        #expect(replacing.applicationName(appendingTo: "Mobile/15E148") == "Mobile/15E148")
        #expect(try UserAgent.replacement("  Custom/1.0   (x) ") == "Custom/1.0 (x)")
        #expect(throws: UserAgentError.empty) { try UserAgent.replacement("   ") }
    }

    @Test("An empty token leaves the user agent unchanged")
    func emptyToken() throws {
        for base in baseUserAgents + ["", "trailing  "] {
            #expect(try UserAgent.appending("", to: base) == base)
            #expect(try UserAgent.appending("   \t ", to: base) == base)
            #expect(UserAgent.appending(ApplicationToken.empty, to: base) == base)
        }
        #expect(try UserAgentPolicy.appending("") == .engineDefault)
    }

    @Test("The same token is never added twice")
    func noDuplicates() throws {
        let once = try UserAgent.appending("ShopApp/2.1", to: iPhoneUA)
        #expect(try UserAgent.appending("ShopApp/2.1", to: once) == once)
        #expect(try UserAgent.appending("  ShopApp/2.1 ", to: once) == once)
        // Already present in the middle, or with different spacing in the base.
        let middle = "Mozilla/5.0 ShopApp/2.1 Mobile/15E148"
        #expect(try UserAgent.appending("ShopApp/2.1", to: middle) == middle)
        #expect(try UserAgent.appending("A/1 B/2", to: "X  A/1   B/2") == "X  A/1   B/2")
        // A token that only *contains* the base's word, or another version, is different.
        #expect(try UserAgent.appending("ShopApp/2.10", to: once) == once + " ShopApp/2.10")
        #expect(try UserAgent.appending("App/2.1", to: once) == once + " App/2.1")
        #expect(try UserAgent.appending("Mobile", to: "Mobile/15E148") == "Mobile/15E148 Mobile")
    }

    @Test("No stray spaces: token and base spacing are normalized at the join")
    func spacing() throws {
        #expect(try UserAgent.appending(" ShopApp/2.1 ", to: "Base/1 ") == "Base/1 ShopApp/2.1")
        #expect(try UserAgent.appending("ShopApp/2.1\t(build   7)", to: "Base/1\t") == "Base/1 ShopApp/2.1 (build 7)")
        #expect(try UserAgent.appending("ShopApp/2.1", to: "") == "ShopApp/2.1")
        #expect(try UserAgent.appending("ShopApp/2.1", to: "   ") == "ShopApp/2.1")
        for base in baseUserAgents {
            let result = try UserAgent.appending("  X/1  ", to: base + "  ")
            #expect(!result.contains("  "))
            #expect(!result.hasSuffix(" "))
        }
    }

    @Test("Tokens with control or non-ASCII characters are refused")
    func validation() {
        let controls: [Character] = ["\r", "\n", "\0", "\u{7F}", "\u{85}", "\u{1B}", "\u{2028}", "\u{2029}"]
        for control in controls {
            let text = "ShopApp/2.1" + String(control) + "X-Injected: 1"
            #expect(throws: UserAgentError.controlCharacter(offset: 11)) { try UserAgent.appending(text, to: iPhoneUA) }
            #expect(throws: UserAgentError.controlCharacter(offset: 11)) { try ApplicationToken(text) }
            #expect(throws: UserAgentError.controlCharacter(offset: 11)) { try UserAgent.replacement(text) }
            #expect(throws: UserAgentError.self) { try UserAgentPolicy.appending(text) }
            #expect(throws: UserAgentError.self) { try UserAgentPolicy.replacingEntireUserAgent(text) }
        }
        #expect(throws: UserAgentError.nonASCIICharacter(offset: 4)) { try ApplicationToken("Shop\u{C4}pp/2.1") }
        #expect(throws: UserAgentError.nonASCIICharacter(offset: 0)) { try ApplicationToken("\u{1F600}/1") }
        #expect(throws: UserAgentError.malformedProduct("/2.1")) { try ApplicationToken("/2.1") }
        #expect(throws: UserAgentError.malformedProduct("ShopApp/")) { try ApplicationToken("ShopApp/") }
        #expect(throws: UserAgentError.malformedProduct("ShopApp / 2.1")) { try ApplicationToken("ShopApp / 2.1") }
    }

    /// Attack 14 (finding 5): WebKitGTK ignores an application name that is not a `User-Agent`
    /// value (WebCore's `isValidUserAgentHeaderValue`: RFC 9110's products and comments), with
    /// only a critical warning in the log; a token that passed validation never reached a server.
    @Test(
        "A token WebKit would drop is refused; products and comments pass",
        arguments: [
            ("ShopApp/2.1/beta", false), ("ShopApp/2.1 (build 7", false), ("Shop@App/2.1", false),
            ("Shop,App/2.1", false), ("ShopApp/2.1 [beta]", false), ("ShopApp/2.1(build)", false),
            ("(build 7) ShopApp/2.1", false), ("ShopApp/2.1 (build \\( 7)", true),
            ("ShopApp/2.1 (build 7; x86_64) Extra/3", true), ("ShopApp/2.1 (a (nested) comment)", true),
            ("Shop-App_1.x!/2.1~rc", true), ("ShopApp/2.1 (a) (b)", true), ("ShopApp/2.1 (a))", false),
        ])
    func productGrammar(text: String, valid: Bool) {
        #expect(UserAgent.isValidFieldValue(text) == valid, "\(text)")
        if valid {
            #expect((try? ApplicationToken(text))?.text == text)
            #expect((try? UserAgent.replacement("Mozilla/5.0 " + text)) == "Mozilla/5.0 " + text)
        } else {
            #expect(throws: UserAgentError.malformedProduct(text)) { try ApplicationToken(text) }
            #expect(throws: UserAgentError.malformedProduct(text)) { try UserAgent.replacement(text) }
        }
    }

    @Test("An application token splits into the name and version WebKitGTK takes")
    func tokenSplit() throws {
        let token = try ApplicationToken("ShopApp/2.1")
        #expect(token.name == "ShopApp")
        #expect(token.version == "2.1")
        let bare = try ApplicationToken("ShopApp")
        #expect(bare.name == "ShopApp")
        #expect(bare.version == nil)
        let words = try ApplicationToken("ShopApp/2.1 (build 7) Extra/3")
        #expect(words.name == "ShopApp")
        #expect(words.version == "2.1 (build 7) Extra/3")
        // Round trip: WebKitGTK appends "name/version" (or "name").
        for text in ["ShopApp/2.1", "ShopApp", "My App/1.0", "A/1 B/2", "X/1 (a/b)"] {
            let parsed = try ApplicationToken(text)
            #expect((parsed.version.map { parsed.name + "/" + $0 } ?? parsed.name) == parsed.text)
            let rebuilt = try ApplicationToken(name: parsed.name, version: parsed.version)
            #expect(rebuilt == parsed)
        }
        #expect(try ApplicationToken(name: "ShopApp", version: "2.1").text == "ShopApp/2.1")
        #expect(try ApplicationToken(name: "ShopApp", version: "").text == "ShopApp")
        #expect(throws: UserAgentError.malformedProduct("Shop/App")) {
            try ApplicationToken(name: "Shop/App", version: "1")
        }
        #expect(throws: UserAgentError.malformedProduct("")) { try ApplicationToken(name: "", version: "1") }
    }
}
