import BridgeKitTesting
import Foundation
import Testing

@testable import BridgeKit

/// Random JSON texts written by hand, so that every spelling JSON allows occurs: escaped keys
/// (`"\u005f_proto__"`, `"__pr\u006fto__"`, every character escaped, upper-case hex), `__proto__`
/// as a key and as a value, nesting, duplicate keys, whitespace around every token, non-ASCII
/// text, U+2028/U+2029, `</script>` and `<!--`. Integers stay within ±(2^53−1): beyond that the
/// embedding writes them as strings on purpose (R11).
struct RandomJSONText {
    var rng: SplitMix64

    static let protoSpellings = [
        #""__proto__""#, #""\u005f_proto__""#, #""_\u005fproto__""#, #""__pr\u006fto__""#, #""__proto\u005f_""#,
        #""\u005F\u005F\u0070\u0072\u006F\u0074\u006F\u005F\u005F""#, #""\u005f\u005fproto\u005f\u005f""#,
        #""__\u0070roto__""#, #""__prot\u006f__""#,
    ]
    static let plainKeys = [
        #""a""#, #""b""#, #""constructor""#, #""prototype""#, #""__proto""#, #""proto__""#, #""__PROTO__""#,
        #""\u005f_proto_""#, #""__proto__ ""#, #""é""#, #""\u2028""#, "\"\u{2029}\"", #""<\/script>""#, #""</script>""#,
        #""<!--""#, #""\"q\"""#, #""\\""#, #""""#, #""1""#, "\"\u{1F600}\"", #""\ud83d\ude00""#, #""toString""#,
    ]
    static let strings = [
        #""""#, #""x""#, #""__proto__""#, #""\u005f_proto__""#, "\"line\u{2028}sep\u{2029}\"",
        #""</script><script>alert(1)</script>""#,
        #""<!-- -->""#, #""\n\r\t\b\f\/""#, #""\u0000\u001f""#, "\"日本語 ü\"", #""\ud800""#, #""`${x}`""#, #""\\\"""#,
        "\"\u{1F600}\"",
    ]
    static let numbers = [
        "0", "-0", "1", "-1", "1.5", "-2.25e3", "1E-7", "9007199254740991", "-9007199254740991", "123456789",
    ]

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    mutating func space() -> String { chance(80) ? "" : pick([" ", "\n", "\t", "\r\n ", "  "]) }

    mutating func key() -> String { chance(35) ? pick(Self.protoSpellings) : pick(Self.plainKeys) }

    mutating func value(depth: Int) -> String {
        let kind = depth >= 4 ? rng.next() % 3 : rng.next() % 5
        switch kind {
        case 0: return pick(Self.strings)
        case 1: return chance(50) ? pick(Self.numbers) : pick(["true", "false", "null"])
        case 2: return pick(Self.strings)
        case 3:
            let count = Int(rng.next() % 4)
            let items = (0..<count).map { _ in space() + value(depth: depth + 1) + space() }
            return "[" + items.joined(separator: ",") + space() + "]"
        default:
            let count = Int(rng.next() % 5)
            let members = (0..<count).map { _ in
                space() + key() + space() + ":" + space() + value(depth: depth + 1) + space()
            }
            return "{" + members.joined(separator: ",") + space() + "}"
        }
    }

    /// One text: an object most of the time (where `__proto__` matters), sometimes any value.
    mutating func text() -> String {
        let body = chance(85) ? objectText() : value(depth: 0)
        return space() + body + space()
    }

    mutating func objectText() -> String {
        let count = 1 + Int(rng.next() % 4)
        let members = (0..<count).map { _ in space() + key() + space() + ":" + space() + value(depth: 1) + space() }
        return "{" + members.joined(separator: ",") + "}"
    }
}

/// Kind of fault: JSON text embedded as an object literal where a key that JSON unescapes to
/// `__proto__` sets the prototype instead of creating an own property (issue 20, item 4).
///
/// Property: for random JSON texts, every way BridgeKit embeds JSON text as a JavaScript
/// expression (``JavaScriptEmbedding``, the ASCII form, the success-reply writers in place and in
/// a buffer, the script builder over message parts) gives, evaluated by node, a value whose own
/// keys, values and prototypes equal `JSON.parse` of the same text.
@Suite("Escaping: an embedded JSON text evaluates to what JSON.parse makes of it")
struct EmbeddedJSONPropertyTests {
    /// Compares each case in node: `exprs` are evaluated as expressions, `scripts` as reply
    /// scripts whose message's `data` is compared; prints the failures as JSON.
    static let program = #"""
        const fs = require('fs');
        const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
        const failures = [];
        function same(a, b, path) {
          if (typeof a !== typeof b) return `${path}: type ${typeof a} vs ${typeof b}`;
          if (a === null || b === null || typeof a !== 'object') {
            return Object.is(a, b) ? null : `${path}: ${String(a)} vs ${String(b)}`;
          }
          if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs not`;
          const proto = Array.isArray(b) ? Array.prototype : Object.prototype;
          if (Object.getPrototypeOf(a) !== proto) return `${path}: prototype replaced`;
          const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
          if (JSON.stringify(ka) !== JSON.stringify(kb)) return `${path}: keys ${JSON.stringify(ka)} vs ${JSON.stringify(kb)}`;
          for (const k of kb) {
            const da = Object.getOwnPropertyDescriptor(a, k), db = Object.getOwnPropertyDescriptor(b, k);
            if (!('value' in da)) return `${path}.${k}: accessor`;
            const problem = same(da.value, db.value, `${path}.${k}`);
            if (problem) return problem;
          }
          return null;
        }
        let received;
        globalThis.window = { WebBridge: { _receive(m) { received = m; } } };
        for (const c of cases) {
          const expected = JSON.parse(c.json);
          const check = (label, f) => {
            let problem;
            try { problem = same(f(), expected, '$'); } catch (e) { problem = `threw ${e}`; }
            if (problem) failures.push({ json: c.json, label, problem });
          };
          c.exprs.forEach((e, i) => check(`expr ${i}`, () => (0, eval)('(' + e + ')')));
          c.scripts.forEach((s, i) => check(`script ${i}`, () => {
            received = undefined;
            (0, eval)(s);
            return received.data;
          }));
        }
        process.stdout.write(JSON.stringify(failures.slice(0, 20)));
        """#

    struct Case: Encodable {
        let json: String
        let exprs: [String]
        let scripts: [String]
    }

    /// Every way the package embeds the JSON text `json` as an expression.
    static func embeddings(of json: String) -> Case {
        let data = Data(json.utf8)
        var ascii = [UInt8]()
        data.withUnsafeBytes {
            JavaScriptEmbedding.appendExpression(fromJSON: $0.bindMemory(to: UInt8.self), to: &ascii, asciiOnly: true)
        }
        // Padding past the single-pass limit makes the in-place writer count first.
        let padded = Data(("[" + String(repeating: " ", count: ReplyPipeline.singlePassLimit) + json + "]").utf8)
        var scripts: [String] = []
        for asciiOnly in [false, true] {
            if let script = ReplyPipeline.successScriptInPlace(id: "p-1", result: data, asciiOnly: asciiOnly) {
                scripts.append(script)
            }
            scripts.append(ReplyPipeline.successScriptInBuffer(id: "p-1", result: data, asciiOnly: asciiOnly))
        }
        if let built = ReplyPipeline.successScript(id: "p-1", result: data, limit: .max) {
            scripts.append(built.script)
        }
        if let parts = try? ReplyPipeline.json(
            OutboundMessage.reply(id: "p-1", result: .success(RawJSON(checked: data))))
        {
            scripts.append(PageScript.build(calling: .receive, jsonParts: parts.parts))
        }
        var exprs = [JavaScriptEmbedding.expression(fromJSON: data), String(decoding: ascii, as: UTF8.self)]
        if let script = ReplyPipeline.successScriptInPlace(id: "p-1", result: padded) {
            // The padded text's one element, read back from the array the script carries.
            let start = script.range(of: #"{"data":"#)
            let end = script.range(of: #","id":"p-1""#, options: .backwards)
            if let start, let end { exprs.append("(" + String(script[start.upperBound..<end.lowerBound]) + ")[0]") }
        }
        return Case(json: json, exprs: exprs, scripts: scripts)
    }

    @Test("random JSON texts with escaped keys: every embedding evaluates to JSON.parse of the text (node)")
    func randomTexts() throws {
        var generator = RandomJSONText(seed: 0x2020_0004)
        var cases: [Case] = []
        for _ in 0..<600 {
            let text = generator.text()
            // Every text the generator writes is JSON (a generator bug must not pass silently).
            let valid = Array(text.utf8).withUnsafeBufferPointer {
                JSONValidator.isValid($0, maxDepth: .max, allowsRepeatedNames: true)
            }
            #expect(valid, "\(text)")
            cases.append(Self.embeddings(of: text))
        }
        // The spellings themselves, alone, nested and next to another key.
        for spelling in RandomJSONText.protoSpellings {
            for text in [
                "{\(spelling):{\"x\":1}}", "{\"a\":[{\(spelling) :null}]}", "{\(spelling):1,\(spelling):2}",
                "{\"k\":\(spelling),\(spelling):\"</script>\u{2028}\"}",
            ] {
                cases.append(Self.embeddings(of: text))
            }
        }
        let input = String(decoding: try BridgeJSON.encode(cases), as: UTF8.self)
        let failures = try NodeJS.run(Self.program, stdin: input)
        #expect(failures == "[]")
    }

    @Test("a task's RawJSON result, progress and event with an escaped __proto__ key reach the page as own properties")
    func throughTheRouter() async throws {
        let raw = try RawJSON(validating: #"{"\u005f_proto__":{"polluted":true},"__pr\u006fto__":{"y":2}}"#)
        let task = ClosureTask(name: "raw") { (_: NoOptions, context: CallContext) in
            try await context.progress(raw)
            return raw
        }
        let router = try makeRouter([task])
        let page = InMemoryPage(router: router)
        _ = await page.call("raw", id: "r-1")
        try await router.emit("evt", data: raw)
        let scripts = page.scripts
        #expect(scripts.count == 3)
        let program = #"""
            const fs = require('fs');
            const scripts = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
            const out = [];
            globalThis.window = { WebBridge: { _receive(m) {
              const v = m.data;
              out.push([m.kind, Object.getPrototypeOf(v) === Object.prototype, Object.keys(v).join(','), v.polluted === undefined]);
            } } };
            for (const s of scripts) (0, eval)(s);
            process.stdout.write(JSON.stringify(out));
            """#
        let output = try NodeJS.run(program, stdin: String(decoding: try BridgeJSON.encode(scripts), as: UTF8.self))
        #expect(
            output
                == #"[["progress",true,"__proto__",true],["reply",true,"__proto__",true],["event",true,"__proto__",true]]"#
        )
    }
}
