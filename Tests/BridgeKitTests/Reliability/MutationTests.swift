import BridgeKitTesting
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// Kind of fault: a router that traps, hangs or answers twice on a body a page (or a broken
/// engine) can post: flipped bits, cut-off text, stray bytes, repeated fragments (R13 for the
/// whole family of malformed bodies).
///
/// Deterministic: the protocol fixtures are mutated by ``SplitMix64`` from fixed seeds, so a
/// failure names the exact body. The fuzz target (Fuzz/RouterFuzz) explores the same input path
/// without a time limit; this test keeps a fixed, fast sample of it in the normal suite.
@Suite("Reliability: mutated bodies never crash the router and are answered exactly once")
struct MutationTests {
    static let mutantsPerRun = 2500

    /// The `message` member of every protocol fixture, as JSON text, plus the call fixtures
    /// retargeted at the tasks registered here (so mutations also reach option decoding and tasks).
    static func seedBodies() throws -> [[UInt8]] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/protocol")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        var bodies: [[UInt8]] = []
        for file in files {
            let fixture = try BridgeJSON.decode(JSONValue.self, from: Data(contentsOf: file))
            guard case .object(var message)? = fixture["message"] else { continue }
            bodies.append(Array(try BridgeJSON.encode(JSONValue.object(message))))
            if message["task"] != nil {
                for (task, options) in [
                    ("echo", ["text": "a\u{2028}</script>", "n": 1] as JSONValue), ("progress", ["n": 2]),
                    ("throwing", ["code": "nope"]), ("typed", ["a": 1, "b": ["x"]]),
                ] {
                    message["task"] = .string(task)
                    message["options"] = options
                    bodies.append(Array(try BridgeJSON.encode(JSONValue.object(message))))
                }
            }
        }
        return bodies
    }

    static func router(
        limits: BridgeLimits = BridgeLimits(
            maxPayloadBytes: 4096, maxDepth: 12, maxPendingCalls: 100_000,
            maxProgressPerCall: 1)
    ) throws -> BridgeRouter {
        struct Typed: Decodable, Sendable {
            let a: Int
            let b: [String]
        }
        return try makeRouter(
            [
                echoTask,
                ClosureTask(name: "progress") { (options: JSONValue, context: CallContext) -> Int64 in
                    let count = max(0, min(options.int("n") ?? 0, 3))
                    for step in 0..<count { try await context.progress(step) }
                    return count
                },
                ClosureTask(name: "throwing") { (options: JSONValue, _: CallContext) -> NoResult in
                    throw BridgeError(code: options.string("code") ?? "boom", message: "thrown")
                },
                ClosureTask(name: "typed") { (options: Typed, _: CallContext) in options.a + options.b.count },
            ], limits: limits)
    }

    /// The ids a reply to `bytes` may carry: the strict decode's, and the one the router's own
    /// forgiving pre-scan (`BodyScan`) reads from a body that is not valid JSON.
    static func readableIDs(_ bytes: [UInt8]) -> (strictCallID: String?, any: Set<String>) {
        var ids = Set<String>()
        if let scanned = bytes.withUnsafeBufferPointer({ BodyScan($0).id }) { ids.insert(scanned) }
        var strictCallID: String?
        if case .object(let members)? = try? BridgeJSON.decode(JSONValue.self, from: Data(bytes)) {
            let id: String? =
                if let value = members["id"] { value.stringValue } else { members["callbackId"]?.stringValue }
            if let id { ids.insert(id) }
            let kind = members["kind"]?.stringValue ?? (members["task"] != nil ? "call" : nil)
            let versionOK = members["v"] == nil || members["v"] == 1
            if kind == "call", versionOK, members["task"]?.stringValue?.isEmpty == false { strictCallID = id }
        }
        return (strictCallID, ids)
    }

    @Test(
        "Thousands of mutated fixture bodies: no crash; every reply path answered once; every readable call id answered once"
    )
    func mutatedBodies() async throws {
        let seeds = try Self.seedBodies()
        try #require(seeds.count >= 14)
        var rng = SplitMix64(seed: 0xB21D_6E00)
        // Router A has no page channel: every answer goes through the message's reply handler, so
        // each message's answer can be checked. Router B has one: replies go by script.
        let routerA = try Self.router()
        let logA = TrafficLog(routerA)
        let routerB = try Self.router()
        let pageB = InMemoryPage(router: routerB)
        let replies = ReplyLog()
        var strictCalls: [String: String] = [:]
        var mentions: [String: Int] = [:]
        var mutants = 0
        for index in 0..<Self.mutantsPerRun {
            let original = seeds[rng.below(seeds.count)]
            let bytes = Self.mutate(original, &rng)
            if bytes != original { mutants += 1 }
            let key = "m\(index)"
            let body: MessageBody =
                index.isMultiple(of: 2) ? .json(Data(bytes)) : .string(String(decoding: bytes, as: UTF8.self))
            // The text as the router reads it: a string body's invalid UTF-8 is already repaired,
            // a JSON-string body is unwrapped once.
            let seen: [UInt8] =
                switch body {
                case .string(let text): Array(text.utf8)
                case .json(let data): BridgeRouter.unwrapJSONString(data).map(Array.init) ?? []
                case .absent: []
                }
            let (strictCallID, ids) = Self.readableIDs(seen)
            strictCalls[key] = strictCallID
            for id in ids { mentions[id, default: 0] += 1 }
            routerA.receive(body, from: .mainFrame(appOrigin), replyHandler: replies.handler(key))
            routerB.receive(body, from: .mainFrame(appOrigin), replyHandler: replies.handler("B" + key))
        }
        #expect(
            await settle(tries: 100_000) { replies.notAnsweredOnce.isEmpty },
            "reply handlers not answered exactly once: \(replies.notAnsweredOnce.prefix(10))")
        for index in 0..<Self.mutantsPerRun {
            let key = "m\(index)"
            guard let answer = replies.message(key) else {
                #expect(strictCalls[key] == nil, "\(key): a call with id \(strictCalls[key] ?? "") got no reply")
                continue
            }
            #expect(answer["kind"] == "reply", "\(key): the reply path carried \(answer)")
            if let id = strictCalls[key] { #expect(answer["id"] == .string(id), "\(key): answered under another id") }
        }
        // Router B: no id gets more final replies than messages that named it.
        #expect(await settle { routerB.pendingCountsForTesting == (0, 0) && routerA.pendingCountsForTesting == (0, 0) })
        var finals: [String: Int] = [:]
        for message in pageB.messages where message["kind"] == "reply" {
            if let id = message.string("id") { finals[id, default: 0] += 1 }
        }
        for (id, count) in finals { #expect(count <= mentions[id, default: 0], "id \(id): \(count) replies") }
        let refused = logA.all.filter { $0.direction == .inbound && $0.outcome != nil }.count
        print(
            "mutation: \(mutants) bad inputs tried (\(Self.mutantsPerRun) bodies, \(refused) refused by router A, \(seeds.count) seeds)"
        )
        #expect(mutants > Self.mutantsPerRun * 9 / 10)
    }

    /// One to three random edits of `bytes`.
    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        let alphabet: [[UInt8]] = [
            [0x22], [0x5C], [0x7B], [0x7D], [0x5B], [0x5D], [0x3A], [0x2C], [0x00], [0xFF],
            [0xE2, 0x80, 0xA8], [0xED, 0xA0, 0x80], Array("\\u".utf8), Array("null".utf8),
            Array("\"__proto__\"".utf8), Array("1e999".utf8), Array("\"id\":".utf8),
        ]
        var out = bytes
        for _ in 0..<(1 + rng.below(3)) {
            guard !out.isEmpty else {
                out = alphabet[rng.below(alphabet.count)]
                continue
            }
            let at = rng.below(out.count)
            switch rng.below(6) {
            case 0: out[at] ^= UInt8(1 << rng.below(8))
            case 1: out.removeSubrange(at...)
            case 2: out.insert(contentsOf: alphabet[rng.below(alphabet.count)], at: at)
            case 3:
                let end = min(out.count, at + 1 + rng.below(24))
                out.insert(contentsOf: out[at..<end], at: end)
            case 4: out.removeSubrange(at..<min(out.count, at + 1 + rng.below(8)))
            default: out[at] = UInt8(truncatingIfNeeded: rng.next())
            }
        }
        return out
    }
}

extension JSONValue {
    fileprivate var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
