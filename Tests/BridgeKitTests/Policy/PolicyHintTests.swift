import Testing

@testable import BridgeKit

/// The set-up mistakes a refusal names on standard error (``PolicyHint``): a new user's page
/// waited for ever behind a router that allowed no origin, with no sign outside the traffic log.
@Suite("Policy hints")
struct PolicyHintTests {
    let page = MessageSource(origin: SecurityOrigin("https://app.example"), isMainFrame: true)

    @Test("a policy that allows no origin: the hint names the origin to list")
    func emptyPolicy() throws {
        let hint = try #require(
            PolicyHint.hint(reason: "origin_not_allowed", task: "Greet", source: page, policy: AccessPolicy()))
        #expect(hint.contains(#"BridgeConfiguration(policy: .origins(["https://app.example"]))"#), "\(hint)")
        #expect(hint.contains("Greet"))
    }

    @Test("a page without an origin: the hint says how to give it one")
    func noOrigin() throws {
        let hint = try #require(
            PolicyHint.hint(
                reason: "no_origin", task: "Greet", source: MessageSource(origin: nil, isMainFrame: true),
                policy: .origins([OriginPattern("https://app.example")])))
        #expect(hint.contains("file://") && hint.contains("app://bundle"), "\(hint)")
    }

    @Test("an origin a non-empty policy does not list, and a subframe, need no hint (the policy at work)")
    func noHint() {
        let policy = AccessPolicy.origins([OriginPattern("https://other.example")])
        #expect(PolicyHint.hint(reason: "origin_not_allowed", task: "Greet", source: page, policy: policy) == nil)
        #expect(PolicyHint.hint(reason: "subframe", task: "Greet", source: page, policy: AccessPolicy()) == nil)
    }
}
