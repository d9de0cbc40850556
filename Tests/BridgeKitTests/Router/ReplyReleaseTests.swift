import BridgeKit
import Foundation
import Synchronization
import Testing

/// Kind of fault: a large payload kept alive after its reply is encoded (by the call's work
/// closure, by a caller's copy of the reply message) sits in memory while the engine makes its
/// own copies of the reply, adding a full payload to the peak memory of every large round trip
/// (issue 7, "8 MB peak memory growth, typed task"). These tests check that the options and the
/// result value are gone by the time the reply reaches the engine, on every final-reply route.
@Suite("Final replies: options and result released before the engine gets the reply")
struct ReplyReleaseTests {
    /// Counts the live instances of each key, to see when a decoded value is released.
    final class LifeToken: Sendable {
        private static let live = Mutex<[String: Int]>([:])
        let key: String

        init(key: String) {
            self.key = key
            Self.live.withLock { $0[key, default: 0] += 1 }
        }

        deinit {
            let key = key
            Self.live.withLock { $0[key, default: 0] -= 1 }
        }

        /// The instances of `key` alive now.
        static func count(_ key: String) -> Int { live.withLock { $0[key] ?? 0 } }
    }

    /// A value that holds a ``LifeToken`` while it lives; encodes as its key (a JSON string).
    struct Tracked: Codable, Sendable {
        let key: String
        let token: LifeToken

        init(from decoder: any Decoder) throws {
            key = try decoder.singleValueContainer().decode(String.self)
            token = LifeToken(key: key)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(key)
        }
    }

    /// Returns its options as its result, like a typed echo.
    struct EchoTracked: BridgeTask {
        let execution: TaskExecution
        var name: String { "EchoTracked" }

        func run(_ options: Tracked, context: CallContext) async throws -> Tracked {
            #expect(LifeToken.count(options.key) == 1)
            return options
        }
    }

    static func call(_ key: String) -> MessageBody {
        .string(#"{"v":1,"kind":"call","id":"r","task":"EchoTracked","options":"\#(key)"}"#)
    }

    static let executions: [TaskExecution] = [.concurrent, .immediate]

    @Test("through a reply handler that carries final replies", arguments: executions)
    func replyHandler(execution: TaskExecution) async throws {
        let key = "handler-\(execution)"
        let router = try makeRouter([EchoTracked(execution: execution)])
        router.connect(PageChannel { _ in })
        let seen = Mutex<[(text: String?, live: Int)]>([])
        let handler = ReplyHandler(carriesFinalReplies: true) { json in
            let live = LifeToken.count(key)
            seen.withLock { $0.append((json, live)) }
        }
        router.receive(Self.call(key), from: .mainFrame(appOrigin), replyHandler: handler)
        #expect(await eventually { seen.withLock { !$0.isEmpty } })
        let replies = seen.withLock { $0 }
        #expect(replies.count == 1)
        #expect(replies.first?.text == #"{"data":"\#(key)","id":"r","kind":"reply","ok":true,"v":1}"#)
        #expect(replies.first?.live == 0)
        await router.close()
    }

    @Test("as a script through an awaited page channel", arguments: executions)
    func evaluatedScript(execution: TaskExecution) async throws {
        let key = "script-\(execution)"
        let router = try makeRouter([EchoTracked(execution: execution)])
        let seen = Mutex<[(script: String, live: Int)]>([])
        router.connect(
            PageChannel { script in
                let live = LifeToken.count(key)
                seen.withLock { $0.append((script, live)) }
            })
        router.receive(Self.call(key), from: .mainFrame(appOrigin))
        #expect(await eventually { seen.withLock { !$0.isEmpty } })
        let scripts = seen.withLock { $0 }
        #expect(scripts.count == 1)
        #expect(scripts.first?.script.contains(#"{"data":"\#(key)","id":"r","kind":"reply","ok":true,"v":1}"#) == true)
        #expect(scripts.first?.live == 0)
        await router.close()
    }
}
