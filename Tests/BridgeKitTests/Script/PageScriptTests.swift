import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Builds the reply script the router would send for `data` and call id `id`.
private func replyScript(_ data: JSONValue, id: String = "cb_7") throws -> String {
    let message: JSONValue = ["v": 1, "kind": "reply", "id": .string(id), "ok": true, "data": data]
    return try PageScript.build(calling: .receive, encoding: message)
}

/// What the page received, decoded from the engine's own JSON.stringify.
private func evaluated(_ script: String) throws -> [JSONValue] {
    let text = try NodeJS.receivedMessages(evaluating: script)
    return try BridgeJSON.decode([JSONValue].self, from: Data(text.utf8))
}

/// Kind of fault: data pasted into script text changes the script (quotes, line terminators,
/// markup, template syntax). Every case checks the text of the script and what a real engine
/// receives.
@Suite("Escaping: replies are data, never code")
struct PageScriptTests {
    @Test("R01 apostrophe, quotes, newline and backslash round-trip; bare string stays a string")
    func r01() throws {
        let data: JSONValue = ["text": "Line one\nIt's \"two\"", "path": "C:\\tmp"]
        let script = try replyScript(data)
        #expect(!script.contains("\n") && !script.contains("\r"))
        let received = try evaluated(script)
        #expect(received.count == 1)
        #expect(received.first?["id"] == "cb_7")
        let text = try #require(received.first?["data"]?.string("text"))
        #expect(
            text.filter { $0 == "\n" }.count == 1 && text.filter { $0 == "'" }.count == 1
                && text.filter { $0 == "\"" }.count == 2)
        #expect(received.first?["data"]?.string("path")?.filter { $0 == "\\" }.count == 1)
        let bare = try evaluated(try replyScript("12'3"))
        #expect(bare.first?["data"] == "12'3")
    }

    @Test("R02 U+2028 and U+2029 never appear raw in a script, and decode back")
    func r02() throws {
        let data: JSONValue = ["items": [["title": "A\u{2028}B", "body": ["p": "C\u{2029}D"]]]]
        let script = try replyScript(data)
        #expect(!script.unicodeScalars.contains("\u{2028}") && !script.unicodeScalars.contains("\u{2029}"))
        #expect(script.contains("\\u2028") && script.contains("\\u2029"))
        #expect(try evaluated(script).first?["data"] == data)
    }

    @Test("R04 a JSON document inside a string keeps its backslashes")
    func r04() throws {
        let body = Data(#"{"inner":"{\"k\":\"v\\\\w\"}"}"#.utf8)
        let decoded = try BridgeJSON.decode(JSONValue.self, from: body)
        let inner = try #require(decoded.string("inner"))
        #expect(inner == #"{"k":"v\\w"}"#)
        let again = try BridgeJSON.decode(JSONValue.self, from: Data(inner.utf8))
        #expect(again.string("k") == #"v\w"#)
        #expect(try evaluated(try replyScript(decoded)).first?["data"] == decoded)
    }

    @Test("R05 accented text and astral characters arrive intact; no lone surrogate escapes")
    func r05() throws {
        let data: JSONValue = ["title": "Alegoría", "artist": "Zoë", "mood": "😀👍🏽"]
        let script = try replyScript(data)
        #expect(script.range(of: #"\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])"#, options: .regularExpression) == nil)
        let received = try evaluated(script)
        #expect(received.first?["data"] == data)
        #expect(received.first?["data"]?.string("mood")?.unicodeScalars.count == 3)
        #expect(received.first?["data"]?.string("mood")?.utf16.count == 6)
    }

    @Test("R06 no </script or <!-- in any emitted script, in any letter case")
    func r06() throws {
        let data: JSONValue = ["note": "</script><b>x</b>", "alt": "</ScRiPt>", "c": "<!--"]
        let script = try replyScript(data)
        #expect(script.range(of: "</script", options: .caseInsensitive) == nil)
        #expect(!script.contains("<!--") && !script.contains("<"))
        #expect(try evaluated(script).first?["data"] == data)
        let cookieScript = try PageScript.build(calling: .assignCookies, encoding: ["a=</script>"])
        #expect(!cookieScript.contains("<"))
    }

    @Test("R08 template syntax and backticks are inert")
    func r08() throws {
        let data: JSONValue = ["msg": "a\nb", "tpl": "${window.probe}", "tick": "`"]
        let received = try evaluated(try replyScript(data))
        #expect(received.first?["data"] == data)
        #expect(received.first?["data"]?.string("tpl")?.count == 15)
    }

    @Test("R11 integers beyond 2^53-1 become strings; safe integers stay numbers; inbound stays exact")
    func r11() throws {
        struct Ids: Encodable {
            let id: Int64 = 9_007_199_254_740_993
            let small = 42
            let neg: Int64 = -9_007_199_254_740_993
            let edge: Int64 = 9_007_199_254_740_991
        }
        let script = try PageScript.build(calling: .receive, encoding: Ids())
        #expect(script.contains(#""id":"9007199254740993""#) && script.contains(#""neg":"-9007199254740993""#))
        #expect(script.contains(#""small":42"#) && script.contains(#""edge":9007199254740991"#))
        let inbound = try BridgeJSON.decode(JSONValue.self, from: Data(#"{"n":9007199254740993}"#.utf8))
        #expect(inbound["n"] == .int(9_007_199_254_740_993))
    }

    @Test("A __proto__ key is delivered as an own property, not a prototype")
    func protoKey() throws {
        let data: JSONValue = ["__proto__": ["polluted": true], "x": 1]
        let script = try replyScript(data)
        #expect(script.contains("JSON.parse("))
        let program = #"""
            const fs = require('fs'); const vm = require('vm');
            const script = fs.readFileSync(process.argv[2], 'utf8');
            let got; const window = { WebBridge: { _receive(m) { got = m; } } };
            vm.runInContext(script, vm.createContext({ window, JSON }));
            process.stdout.write(JSON.stringify([Object.keys(got.data), got.data.polluted === undefined]));
            """#
        #expect(try NodeJS.run(program, stdin: script) == #"[["__proto__","x"],true]"#)
    }

    @Test("Escaping corpus arrives byte-exact in a real JS engine", arguments: EscapingCorpus.samples)
    func corpus(sample: EscapingCorpus.Sample) throws {
        let received = try evaluated(try replyScript(.string(sample.text)))
        let text = try #require(received.first?["data"].flatMap { if case .string(let s) = $0 { s } else { nil } })
        #expect(Array(text.utf8) == Array(sample.text.utf8), "\(sample.name)")
    }

    @Test("R28 a script grows linearly with the payload; timing ratios live in the benchmark")
    func linear() throws {
        // Wall-clock ratios are measured by bridgebench (docs/performance.md), not asserted here.
        // What a test can pin: one pass, so the script is at most 6x the escaped input plus a constant.
        for count in [1, 10, 100, 10_000] {
            let text = String(repeating: "ab\u{2028}<", count: count)
            let script = try replyScript(.string(text))
            #expect(script.utf8.count <= 6 * text.utf8.count + 200)
            #expect(script.utf8.count >= text.utf8.count)
        }
    }
}

/// The escaping corpus of issue #2: every sample must survive script embedding byte-exact.
enum EscapingCorpus {
    struct Sample: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    static let samples: [Sample] = [
        Sample(name: "quotes", text: #"single ' double " both '""#),
        Sample(name: "backslashes", text: #"\ \\ \n \u2028 \"#),
        Sample(name: "CR LF", text: "a\r\nb\rc\nd"),
        Sample(name: "line separators", text: "x\u{2028}y\u{2029}z"),
        Sample(name: "script end", text: "</script><script>alert(1)</script><!-- -->"),
        Sample(name: "template", text: "${x} `tick` ${window.probe}"),
        Sample(name: "NUL and controls", text: "a\u{0}b\u{1}c\u{1F}d\u{7F}e"),
        Sample(name: "emoji and astral", text: "😀👍🏽🇫🇷 𝄞 𠜎"),
        Sample(name: "combining", text: "e\u{301} vs é"),
        Sample(name: "1 MB string", text: String(repeating: "0123456789abcdef\u{2028}'\"\\</", count: 1_048_576 / 24)),
    ]
}
