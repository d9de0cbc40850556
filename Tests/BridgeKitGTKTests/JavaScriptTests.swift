#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("JavaScript evaluation")
    struct JavaScript {
        @Test("results come back as JSON text; undefined as nil", .timeLimit(.minutes(1)))
        func resultsAsJSON() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>js</title>", title: "js")
            // jsc_value_to_json does not keep property order (seen: {"b":…,"a":1}), so compare parsed.
            let object = try #require(try await view.evaluateJavaScriptReturningJSON("({a: 1, b: [true, null, 'x']})"))
            let parsed = try JSONSerialization.jsonObject(with: Data(object.utf8)) as? NSDictionary
            #expect(parsed == ["a": 1, "b": [true, NSNull(), "x"]] as NSDictionary)
            #expect(try await view.evaluateJavaScriptReturningJSON("document.title") == #""js""#)
            #expect(try await view.evaluateJavaScriptReturningJSON("1.5") == "1.5")
            #expect(try await view.evaluateJavaScriptReturningJSON("void 0") == nil)
            #expect(try await view.evaluateJavaScriptReturningJSON("") == nil)
            #expect(try await view.evaluateJavaScriptReturningJSON("null") == "null")
        }

        @Test(
            "every character of the script and of string results survives (NUL, U+2028, quotes, emoji)",
            .timeLimit(.minutes(1)))
        func charactersSurvive() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>chars</title>", title: "chars")
            // A raw NUL inside a string literal of the script itself.
            #expect(try await view.evaluateJavaScriptReturningJSON("'a\u{0}b'.length") == "3")
            let tricky = "it's \"quoted\" \\ \u{2028}\u{2029} </script> 😀 \u{0}"
            // A JSON string literal is a JavaScript expression (ES2019), so it is its own script.
            let json = try #require(try await view.evaluateJavaScriptReturningJSON(jsonStringLiteral(tricky)))
            #expect(try JSONDecoder().decode(String.self, from: Data(json.utf8)) == tricky)
        }

        @Test(
            "exceptions, syntax errors and unsupported results throw javaScriptFailed; cycles throw resultNotJSON",
            .timeLimit(.minutes(1)))
        func failures() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>err</title>", title: "err")
            await #expect(throws: GTKWebViewError.self) {
                try await view.evaluateJavaScriptReturningJSON("throw new Error('boom')")
            }
            do {
                _ = try await view.evaluateJavaScriptReturningJSON("throw new Error('boom')")
            } catch {
                guard case .javaScriptFailed(let message) = error else {
                    Issue.record("expected javaScriptFailed, got \(error)")
                    return
                }
                #expect(message.contains("boom"))
            }
            do {
                _ = try await view.evaluateJavaScriptReturningJSON("this is not javascript")
                Issue.record("a syntax error must throw")
            } catch {
                guard case .javaScriptFailed(let message) = error else {
                    Issue.record("got \(error)")
                    return
                }
                #expect(message.contains("SyntaxError"))
            }
            do {
                _ = try await view.evaluateJavaScriptReturningJSON("Promise.resolve(1)")
                Issue.record("a Promise result must throw")
            } catch {
                guard case .javaScriptFailed = error else {
                    Issue.record("got \(error)")
                    return
                }
            }
            await #expect(throws: GTKWebViewError.resultNotJSON) {
                try await view.evaluateJavaScriptReturningJSON("var o = {}; o.self = o; o")
            }
        }

        @Test(
            "evaluateJavaScript ignores the result (a Promise is fine) and still reports exceptions",
            .timeLimit(.minutes(1)))
        func evaluateWithoutResult() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>void</title>", title: "void")
            try await view.evaluateJavaScript("window.flag = 7; Promise.resolve(window.flag)")
            try await view.evaluateJavaScript("window.flag += 1 // trailing comment")
            #expect(try await view.evaluateJavaScriptReturningJSON("window.flag") == "8")
            do {
                try await view.evaluateJavaScript("undefinedFunction()")
                Issue.record("an exception must throw")
            } catch {
                #expect(normalized(error) == .javaScriptFailed(""))
            }
        }

        @Test("the page world and a named world share the DOM but not globals", .timeLimit(.minutes(1)))
        func worldsAreIsolated() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try loadAndWait(view, html: "<title>worlds</title><script>var pageOnly = 1;</script>", title: "worlds")
            #expect(try await view.evaluateJavaScriptReturningJSON("typeof pageOnly") == #""number""#)
            #expect(
                try await view.evaluateJavaScriptReturningJSON("typeof pageOnly", inWorld: "bridgekit")
                    == #""undefined""#)
            #expect(
                try await view.evaluateJavaScriptReturningJSON("document.title", inWorld: "bridgekit") == #""worlds""#)
        }
    }
}

/// A JSON string literal for `text` (JSONEncoder's escaping; no `/` escaping on Linux).
func jsonStringLiteral(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// Drops the message of a javaScriptFailed error so tests can compare the case only.
func normalized(_ error: GTKWebViewError) -> GTKWebViewError {
    if case .javaScriptFailed = error { return .javaScriptFailed("") }
    return error
}
#endif
