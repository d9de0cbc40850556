import BridgeKit
import Foundation

/// Part 1: the router's own work for one call, with no engine: decode the body (envelope and
/// typed options in one pass), dispatch to ``BenchEchoTask``, encode the reply and build the
/// page script. Compared with a bare `JSONDecoder` + `JSONEncoder` doing the same conversion
/// (options text in, result text out) on the same types.
///
/// The bare side does what the router's side does around the codec, no more, and writes the same
/// JSON text (sorted keys, as BridgeKit's encoder): for a ``BenchTaskKind/concurrent`` task, whose
/// calls the router reads on the calling thread and decodes, runs and answers in a new Swift task,
/// the bare side decodes and encodes in a new Swift task (``BareSide/codecWithHop``); for an
/// ``BenchTaskKind/immediate`` task, whose `async` work starts on the calling thread, it decodes
/// and encodes in a Swift task started there (``BareSide/codecImmediate``); for a synchronous task
/// everything stays on the calling thread (``BareSide/codec``).
struct NativePathBench {
    let size: PayloadSize
    let iterations: Int
    let rounds: Int
    /// How the bench task answers.
    var kind: BenchTaskKind = .concurrent

    struct Outcome {
        let size: PayloadSize
        let kind: BenchTaskKind
        let router: Sample
        let bare: Sample
    }

    /// The bare counterpart of a kind of task.
    enum BareSide: String {
        /// Decode and encode on the calling thread.
        case codec = "bare"
        /// Decode and encode in a new Swift task, `batch` calls in flight.
        case codecWithHop = "bare-hop"
        /// Decode and encode in a Swift task started on the calling thread (`Task.immediate`).
        case codecImmediate = "bare-immediate"

        init(for kind: BenchTaskKind) {
            switch kind {
            case .concurrent: self = .codecWithHop
            case .immediate: self = .codecImmediate
            case .synchronous: self = .codec
            }
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case wrongReply(String)
        var description: String {
            switch self {
            case .wrongReply(let what): "native path: the router's reply is wrong: \(what)"
            }
        }
    }

    /// Calls in flight at once for small payloads: the loop posts a batch, then waits for all
    /// its scripts, so the wake-up of the waiting loop is paid once per batch, not once per call.
    /// Payloads of 64 KB and more go one at a time (the wake-up is noise next to their work, and
    /// a batch would hold several copies of a large body).
    static func batch(forBytes bytes: Int) -> Int { bytes >= 64 * 1024 ? 1 : 16 }

    /// A router with the bench task and a script sink, and one body per call slot of a batch.
    struct Harness {
        let router: BridgeRouter
        let sink: ScriptSink
        let bodies: [String]
        let batch: Int
        let source = MessageSource.mainFrame("https://bench.bridgekit.invalid")
        var posted = 0

        init(optionsText: String, kind: BenchTaskKind) throws {
            router = BridgeRouter(configuration: BridgeConfiguration(policy: .anyOrigin()))
            try kind.register(in: router)
            let task = kind.taskName
            let sink = ScriptSink()
            // As both shipped adapters connect a page: an evaluate channel (progress, events), and
            // each message's reply handler carrying its final reply (``Harness/call(_:)``).
            router.connect(PageChannel { script in sink.keep(script) })
            self.sink = sink
            batch = NativePathBench.batch(forBytes: optionsText.utf8.count)
            bodies = (0..<batch).map { slot in
                #"{"v":1,"kind":"call","id":"bench-\#(slot)","task":"\#(task)","options":"# + optionsText + "}"
            }
        }

        /// Posts `count` calls, `batch` at a time, and waits for every reply script.
        mutating func call(_ count: Int) async {
            var left = count
            while left > 0 {
                let now = min(left, batch)
                for slot in 0..<now {
                    router.receive(
                        .string(bodies[slot]), from: source,
                        replyHandler: ReplyHandler(carriesFinalReplies: true) { [sink] text in sink.keep(text ?? "") })
                }
                posted += now
                left -= now
                // Replies handed over before `receive` returned (a synchronous task, an
                // immediate one that never suspends) need no wait: awaiting would hop off the
                // caller's actor and back (the main actor on the GLib loop in the WebKitGTK
                // build), a cost of the harness that the bare side never pays.
                if sink.deliveredCount < posted {
                    await sink.wait(untilDelivered: posted)
                }
            }
        }
    }

    func run() async throws -> Outcome {
        let payload = BenchPayload.make(bytes: size.bytes)
        let optionsText = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        var harness = try Harness(optionsText: optionsText, kind: kind)

        // Correctness first (outside the timing): the reply must carry the same payload back.
        await harness.call(1)
        try Self.check(reply: harness.sink.last ?? "", against: payload, id: "bench-0")
        harness.sink.dropScripts()

        let iterations = self.iterations
        var bare = BareCodec(optionsText: optionsText, side: BareSide(for: kind), batch: harness.batch)
        let (routerSample, bareSample) = try await Measure.alternating(
            rounds: rounds,
            {
                await Measure.time(operations: iterations) {
                    await harness.call(iterations)
                }
            },
            {
                try await Measure.time(operations: iterations) {
                    try await bare.run(iterations)
                }
            })
        await harness.router.close()
        return Outcome(size: size, kind: kind, router: routerSample, bare: bareSample)
    }

    /// Runs only one side, `iterations` times, for a profiler: the router's with ``kind``, or
    /// the bare `side`.
    func profile(bare side: BareSide?) async throws {
        let payload = BenchPayload.make(bytes: size.bytes)
        let optionsText = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        if let side {
            var bare = BareCodec(
                optionsText: optionsText, side: side, batch: Self.batch(forBytes: optionsText.utf8.count))
            try await bare.run(iterations)
            return
        }
        var harness = try Harness(optionsText: optionsText, kind: kind)
        // As in the timed runs: scripts are counted, not kept.
        harness.sink.dropScripts()
        await harness.call(iterations)
        await harness.router.close()
    }

    /// The reply text must be pure ASCII (as the router writes text for a reply handler) and
    /// carry the payload back, with the call's id.
    static func check(reply text: String, against payload: BenchPayload, id: String = "bench-1") throws {
        struct Reply: Codable {
            var v = 1
            var kind = "reply"
            let id: String
            var ok = true
            let data: BenchPayload
        }
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { throw Failure.wrongReply("not pure ASCII") }
        let reply: Reply
        do {
            reply = try JSONDecoder().decode(Reply.self, from: Data(text.utf8))
        } catch {
            throw Failure.wrongReply("not a reply: \(error)")
        }
        guard reply.v == 1, reply.kind == "reply", reply.id == id, reply.ok, reply.data == payload else {
            throw Failure.wrongReply("data differs")
        }
    }
}
