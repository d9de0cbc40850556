import BridgeKitTesting
import Foundation
import Testing

@testable import BridgeKit

/// Kind of fault: readers that disagree on what a body means. An object with two members of one
/// name is left to each parser by RFC 8259 section 4: `JSON.parse` keeps the last, the envelope
/// scan and Foundation on Linux keep the first, and another `JSONDecoder` may do either. A page
/// could then name one task to one reader and another to the next. Every path refuses such a
/// body as `invalid_message` (SECURITY.md, "Crash the app with a malformed body").
@Suite("Reliability: a member name that occurs twice makes a body invalid on every path")
struct DuplicateMemberTests {
    static func tasks(_ ran: Counter) -> [any BridgeTask] {
        optionReadingTasks(ran) + [
            ClosureTask(name: "other") { (_: JSONValue, _: CallContext) in
                ran.increment()
                return "other"
            }
        ]
    }

    /// Bodies with a repeated name, in the envelope or in the options, plain or escaped.
    static let bodies: [String] = {
        var bodies: [String] = []
        for task in ["typed", "typed-now", "typed-sync", "raw"] {
            bodies += [
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1},"task":"other"}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","task":"other","options":{"a":1}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","\u0074ask":"other","options":{"a":1}}"#,
                #"{"v":1,"kind":"call","id":"x","id":"y","task":"\#(task)","options":{"a":1}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1},"options":{"a":2}}"#,
                #"{"v":1,"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1}}"#,
                #"{"v":1,"kind":"call","kind":"call","id":"x","task":"\#(task)","options":{"a":1}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"a":2}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"\u0061":2}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"b":{"c":[{"d":1,"d":2}]}}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"\ud800":1,"\uD800":2}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"é":1,"\u00e9":2}}"#,
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,"\/":1,"/":2}}"#,
                #"{"task":"\#(task)","options":{"a":1},"id":"x","task":"other"}"#,
            ]
            // A large object: the duplicate is found through the hashed names, not a scan.
            let members = (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
            bodies.append(
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,\#(members),"k7":0}}"#)
            bodies.append(
                #"{"v":1,"kind":"call","id":"x","task":"\#(task)","options":{"a":1,\#(members),"k\u0037":0}}"#)
        }
        return bodies
    }()

    @Test("refused as invalid_message under its id; no task runs", arguments: 0..<bodies.count)
    func refused(index: Int) async throws {
        let body = Self.bodies[index]
        let ran = Counter()
        let router = try makeRouter(Self.tasks(ran))
        for form in [MessageBody.string(body), .json(Data(body.utf8))] {
            let page = InMemoryPage(router: router)
            page.post(body: form)
            let reply = await page.reply(for: "x")
            #expect(reply["error"]?.string("code") == "invalid_message", "\(body) \(form) \(reply)")
        }
        #expect(ran.value == 0, "\(body)")
    }

    @Test("names that only look alike are different names, and one name may occur in different objects")
    func distinctNamesAccepted() async throws {
        let members = (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let optionsList = [
            #"{"a":1,"A":2}"#,
            #"{"a":1,"e\u0301":1,"é":2}"#,
            #"{"a":1,"b":{"a":2,"b":{"a":3}},"c":[{"a":4},{"a":5}]}"#,
            #"{"a":1,"x":{\#(members)},"y":{\#(members)},\#(members)}"#,
            #"{"a":1,"k":"\u006b","\u006ba":1}"#,
        ]
        let ran = Counter()
        let router = try makeRouter(Self.tasks(ran))
        for (index, options) in optionsList.enumerated() {
            for task in ["typed", "typed-now", "typed-sync", "raw"] {
                let page = InMemoryPage(router: router)
                let id = "ok-\(index)-\(task)"
                page.post(
                    body: .string(#"{"v":1,"kind":"call","id":"\#(id)","task":"\#(task)","options":\#(options)}"#))
                let reply = await page.reply(for: id)
                #expect(reply["ok"] == true, "\(task) \(options) \(reply)")
            }
        }
        #expect(ran.value == optionsList.count * 4)
    }

    @Test("the validator: duplicates refused at any depth, linear in the number of members")
    func validator() {
        func valid(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { JSONValidator.isValid($0, maxDepth: .max) }
        }
        #expect(!valid(#"{"a":1,"a":1}"#))
        #expect(!valid(#"[{"a":1},{"b":1,"b":1}]"#))
        #expect(!valid(#"{"\"":1,"\u0022":1}"#))
        #expect(!valid(#"{"\n":1,"\u000A":1}"#))
        #expect(valid(#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":1}]}"#))
        #expect(valid(#"{"\n":1,"\r":1,"\t":1,"\b":1,"\f":1,"\\":1,"\/x":1}"#))
        // Lone surrogates compare by value (Foundation cannot decode them into a `String`, so
        // only the validator sees these names).
        #expect(valid(#"{"\ud800":1,"\ud801":2,"\udc00":3}"#))
        #expect(!valid(#"{"\ud800":1,"\uD800":2}"#))
        // 2,000 members, each holding an object of 20: every object is hashed once.
        let inner = "{" + (0..<20).map { #""i\#($0)":0"# }.joined(separator: ",") + "}"
        let wide = "{" + (0..<2_000).map { #""m\#($0)":\#(inner)"# }.joined(separator: ",") + "}"
        #expect(valid(wide))
        #expect(!valid(String(wide.dropLast()) + #","m1999":0}"#))
    }
}
