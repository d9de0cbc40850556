import BridgeKit
import BridgeTestSupport
import Testing

/// The relay settings a host derives from its router's limits (`WebBridgeRelay.settingsScript(limits:)`),
/// run with the relay in node: how many of one frame's posts may cross before native reads them.
@Suite("Relay settings")
struct RelaySettingsTests {
    /// Evaluates `settings` and then the relay in one node context standing in for the relay's
    /// world, dispatches `posts` page-made bodies at it while native reads none of them, and
    /// returns how many posts crossed (bodies and syncs).
    static func crossed(settings: String, posts: Int) throws -> (bodies: Int, syncs: Int) {
        let program = """
            const vm = require('node:vm');
            const fs = require('node:fs');
            const listeners = {};
            const crossed = [];
            const world = {
              addEventListener(type, fn) { (listeners[type] = listeners[type] || []).push(fn); },
              dispatchEvent(event) { (listeners[event.type] || []).forEach((fn) => fn(event)); return true; },
              CustomEvent: class { constructor(type, init) { this.type = type; this.detail = init ? init.detail : null; } },
              webkit: { messageHandlers: { webbridge: { postMessage(message) { crossed.push(message); return new Promise(() => {}); } } } },
              setTimeout, origin: 'https://app.example', Promise,
            };
            world.window = world; world.top = world; world.self = world;
            vm.createContext(world);
            // Standard input: the settings script, then the relay, as the host injects them.
            vm.runInContext(fs.readFileSync(process.argv[2], 'utf8'), world);
            for (let i = 0; i < \(posts); i++) {
              world.dispatchEvent(new world.CustomEvent('webbridge:post', { detail: '{"id":"' + i + '","task":"Nope"}' }));
            }
            const sync = crossed.filter((m) => typeof m === 'string' && m.endsWith('{"v":1,"kind":"sync"}')).length;
            process.stdout.write(JSON.stringify([crossed.length - sync, sync]));
            """
        let output = try NodeJS.run(program, stdin: settings + "\n" + WebBridgeRelay.source)
        let counts = output.split(separator: ",").compactMap { Int($0.filter(\.isNumber)) }
        try #require(counts.count == 2, "node printed \(output)")
        return (counts[0], counts[1])
    }

    @Test("with the default limits one frame may leave 64 posts unread, not maxPendingCalls' 4,096 (attack 18)")
    func defaultWindow() throws {
        let limits = BridgeLimits()
        #expect(limits.maxPendingCalls > WebBridgeRelay.maxUnreadPostsPerFrame)
        let crossed = try Self.crossed(settings: WebBridgeRelay.settingsScript(limits: limits), posts: 1000)
        #expect(crossed.bodies == 64)
        #expect(crossed.syncs == 1)
    }

    @Test("a router allowing fewer pending calls than 64 bounds the window instead")
    func smallerPendingCalls() throws {
        let crossed = try Self.crossed(
            settings: WebBridgeRelay.settingsScript(limits: BridgeLimits(maxPendingCalls: 10)), posts: 1000)
        #expect(crossed.bodies == 10)
        #expect(crossed.syncs == 1)
    }
}
