import BridgeTestSupport

/// Node, shared with BridgeCookiesTests through the BridgeTestSupport target: the name this
/// target's tests use.
typealias NodeJS = BridgeTestSupport.NodeJS
