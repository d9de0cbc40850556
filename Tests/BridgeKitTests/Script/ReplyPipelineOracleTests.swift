import Foundation
import Testing

@testable import BridgeKit

/// ``ReplyPipeline`` writes every native-to-page message by hand; its text must be byte for byte
/// the `Codable` oracle's (``OutboundMessage``'s `Encodable` conformance in the test target,
/// encoded with ``BridgeJSON``), for every kind of message, in both framings.
@Suite("Reply pipeline against the Codable oracle")
struct ReplyPipelineOracleTests {
    /// Ids and names: plain, every character the one id rule excludes, and non-ASCII text.
    static let ids: [String] = [
        "", "1", "cb_7", "t-42", "n-1", "a b", "a\"b", "a\\b", "a<b", "</script>", "a/b", "tab\there", "nl\n",
        "\u{0}", "\u{1F}", "\u{7F}", "é", "✓", "😀", "\u{2028}", "\u{2029}", "x\u{2028}y\u{2029}z", "日本語",
        String(repeating: "k", count: 300),
    ]

    /// Results and payloads: scalars, unsafe integers, nested values, unicode and the script's
    /// special characters.
    static let values: [JSONValue] = [
        .null, true, false, 0, -1, 9_007_199_254_740_993, 1.5, -0.0, 1e300, "", "plain", "<\\/script>\u{2028}\u{2029}",
        "é✓😀", "quote \" and backslash \\", ["a": 1, "b": [1, 2, ["c": nil]]], [[], [:], [""]],
        ["__proto__": ["x": 1]], ["key\u{2028}": "<!--"],
    ]

    static let errors: [BridgeError] = [
        .unknownTask("x"), .invalidOptions("bad \u{2028} <b>", path: "a.b"), .timeout(seconds: 1.5), .cancelled(),
        .taskFailed("failed é", details: ["n": 1, "s": "<"]), .payloadTooLarge(bytes: 10, limit: 5),
        .unavailable("The router was closed."), .forbidden(reason: "origin_not_allowed", origin: "https://a.example"),
    ]

    /// Lists of download tokens for the envelope's `binary` member.
    static let binaryLists: [[String]] = [
        ["8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5"], ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", "00000000000000000000000000000000"],
        ["a\"b", "</x>", "é"],
    ]

    static func oracle(_ message: OutboundMessage) throws -> Data { try BridgeJSON.encode(message) }

    static func messages() -> [OutboundMessage] {
        var messages: [OutboundMessage] = []
        for id in ids {
            for value in values {
                messages.append(.reply(id: id, result: .success(value)))
                messages.append(.progress(id: id, data: value))
                messages.append(.event(name: id, data: value))
                messages.append(.call(id: id, handler: id + "h", options: value))
            }
            for error in errors { messages.append(.reply(id: id, result: .failure(error))) }
            messages.append(.cancel(id: id))
            // Download tokens in the envelope (`binary`): one, several, and ids that need escapes.
            for binary in binaryLists {
                messages.append(.reply(id: id, result: .success(values[4]), binary: binary))
                messages.append(.reply(id: id, result: .failure(errors[0]), binary: binary))
                messages.append(.progress(id: id, data: values[14], binary: binary))
            }
        }
        return messages
    }

    @Test("every kind of message: the same JSON text as the oracle")
    func sameJSON() throws {
        let messages = Self.messages()
        #expect(messages.count > 1000)
        for message in messages {
            let written = try ReplyPipeline.json(message)
            let oracle = try Self.oracle(message)
            #expect(written.count == oracle.count)
            #expect(written.text == String(decoding: oracle, as: UTF8.self), "\(written.text)")
        }
    }

    @Test("framed as reply-handler text: the oracle's text with the ASCII escapes")
    func sameReplyText() throws {
        for message in Self.messages() {
            let written = try ReplyPipeline.json(message).replyText
            #expect(written == OutboundJSON(try Self.oracle(message)).replyText)
            #expect(written.utf8.allSatisfy { $0 < 0x80 })
        }
    }

    @Test("framed as a script: the script the oracle's text makes (no __proto__ key)")
    func sameScript() throws {
        for message in Self.messages() {
            let oracle = try Self.oracle(message)
            guard !String(decoding: oracle, as: UTF8.self).contains("__proto__") else { continue }
            #expect(
                ReplyPipeline.script(try ReplyPipeline.json(message))
                    == PageScript.build(calling: .receive, json: oracle))
        }
    }

    @Test("a success reply written in place (script and reply-handler text): the oracle's, for plain ids")
    func successScriptInPlace() throws {
        for id in Self.ids {
            for value in Self.values {
                let result = try BridgeJSON.encode(value)
                let message = OutboundMessage.reply(id: id, result: .success(value))
                let fast = ReplyPipeline.successScript(id: id, result: result, limit: .max)
                #expect((fast != nil) == ReplyPipeline.isPlain(id), "\(id)")
                guard let fast else { continue }
                #expect(fast.messageBytes == (try Self.oracle(message)).count)
                #expect(fast.script == ReplyPipeline.script(try ReplyPipeline.json(message)))
                let text = try #require(ReplyPipeline.successText(id: id, result: result, limit: .max))
                #expect(text.messageBytes == fast.messageBytes)
                #expect(text.text == OutboundJSON(try Self.oracle(message)).replyText)
            }
        }
    }

    @Test("huge results, with and without non-ASCII text: the oracle's bytes in every framing")
    func hugeResults() throws {
        let bodies = [
            String(repeating: "a", count: 2_000_000),
            String(repeating: "abcdefghijklmnoé", count: 70_000) + "\u{2028}<",
            String(repeating: "日本", count: 10_000),
        ]
        for body in bodies {
            let value = JSONValue.string(body)
            for id in ["big", "big\u{2028}", "<big>"] {
                let message = OutboundMessage.reply(id: id, result: .success(value))
                let oracle = try Self.oracle(message)
                let written = try ReplyPipeline.json(message)
                #expect(written.text == String(decoding: oracle, as: UTF8.self))
                #expect(written.replyText == OutboundJSON(oracle).replyText)
                let script = ReplyPipeline.script(written)
                #expect(script == PageScript.build(calling: .receive, json: oracle))
                if let fast = ReplyPipeline.successScript(id: id, result: try BridgeJSON.encode(value), limit: .max) {
                    #expect(fast.script == script)
                }
                if let fast = ReplyPipeline.successText(id: id, result: try BridgeJSON.encode(value), limit: .max) {
                    #expect(fast.text == written.replyText)
                }
            }
        }
    }

    @Test("one id rule: printable ASCII other than quote, backslash and <")
    func oneIDRule() {
        for byte in UInt8(0)...UInt8(255) {
            let plain =
                byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
                && byte != UInt8(ascii: "<")
            #expect(ReplyPipeline.isPlainByte(byte) == plain)
        }
        #expect(ReplyPipeline.isPlain("cb_7-x.y:z"))
        #expect(!ReplyPipeline.isPlain("a<b"))
        #expect(!ReplyPipeline.isPlain("é"))
    }
}
