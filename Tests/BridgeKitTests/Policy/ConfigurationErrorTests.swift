import BridgeKit
import BridgeKitTesting
import Testing

/// Configuration errors are seen when the configuration is built, not as a silent `forbidden`
/// on every call (issue 24, item 6).
@Suite("Configuration errors")
struct ConfigurationErrorTests {
    @Test("An origin without a scheme is thrown when the pattern, policy or configuration is checked")
    func missingScheme() throws {
        #expect(throws: OriginPatternError(text: "app.example", reason: .missingScheme)) {
            try OriginPattern(validating: "app.example")
        }
        let policy = AccessPolicy.origins(["app.example"])
        #expect(throws: OriginPatternError(text: "app.example", reason: .missingScheme)) { try policy.validate() }
        #expect(throws: OriginPatternError.self) { try BridgeConfiguration(policy: policy).validate() }
        #expect(throws: OriginPatternError.self) { try BridgeConfiguration(validating: policy) }
        #expect(policy.patternErrors.map(\.reason) == [.missingScheme])
        #expect(throws: OriginPatternError.self) {
            try AccessPolicy.checkedOrigins(["https://app.example", "app.example"])
        }
        let error = OriginPattern("app.example").error
        #expect(error?.reason == .missingScheme)
        #expect(error?.description.contains("\"https://app.example\"") == true, "the message says how to write it")
    }

    @Test(
        "An origin without \"//\" is guessed as its writer meant it (a new user wrote \"app:bundle\" and was told \"https://app:bundle\")",
        arguments: [
            ("app:bundle", "app://bundle"),
            ("app:/bundle", "app://bundle"),
            ("https:app.example", "https://app.example"),
            ("App:bundle", "app://bundle"),
            ("localhost:8080", "https://localhost:8080"),
            ("app.example", "https://app.example"),
            ("*.example.com", "https://*.example.com"),
        ])
    func guessedFix(text: String, guess: String) {
        let error = OriginPattern(text).error
        #expect(error?.reason == .missingScheme)
        #expect(error?.description.hasSuffix("; write \"\(guess)\"") == true, "\(error?.description ?? "")")
    }

    @Test(
        "Each malformed form has its reason",
        arguments: [
            ("https://", OriginPatternError.Reason.missingHost),
            ("https://*.", .missingHost),
            ("https://*", .misplacedWildcard),
            ("https://*example.com", .misplacedWildcard),
            ("*.example.com", .missingScheme),
            ("https://app.*.com", .misplacedWildcard),
            ("https://app.example/app", .notAnOrigin),
            ("https://app.example?x=1", .notAnOrigin),
            ("https://user@app.example", .notAnOrigin),
            ("https://app example", .notAnOrigin),
            ("null", .opaqueOrigin),
            ("", .missingScheme),
        ])
    func malformed(text: String, reason: OriginPatternError.Reason) {
        #expect(throws: OriginPatternError(text: text, reason: reason)) { try OriginPattern(validating: text) }
        #expect(!OriginPattern(text).isValid)
    }

    @Test(
        "Valid patterns pass every check and keep their meaning",
        arguments: [
            "https://app.example", "https://app.example/", "http://localhost:8080", "https://*.example.com",
            "https://*.example.com:8443", "app://local", "http://[::1]:8080",
        ])
    func valid(text: String) throws {
        let checked = try OriginPattern(validating: text)
        #expect(checked == OriginPattern(text))
        #expect(checked.error == nil)
        try AccessPolicy.origins([checked]).validate()
        try BridgeConfiguration(policy: .origins([checked])).validate()
        _ = try BridgeConfiguration(validating: .origins([checked]))
    }

    @Test("The throwing factory builds the same policy as the unchecked one")
    func factory() throws {
        let checked = try AccessPolicy.checkedOrigins(["https://app.example"], allowsSubframes: true)
        #expect(checked == .origins(["https://app.example"], allowsSubframes: true))
        try AccessPolicy().validate()
        try AccessPolicy.anyOrigin().validate()
    }

    @Test("An unchecked invalid pattern still denies rather than allows", .timeLimit(.minutes(1)))
    func uncheckedDenies() async throws {
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(["app.example"])))
        try router.register(ClosureTask(name: "Echo") { (options: JSONValue, _: CallContext) in options })
        let page = InMemoryPage(router: router, origin: "https://app.example")
        let reply = await page.call("Echo", options: ["a": 1], timeLimit: .seconds(30))
        #expect(reply["error"]?.string("code") == "forbidden")
    }
}
