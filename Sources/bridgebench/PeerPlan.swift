import Foundation

/// One payload size of the peer comparison (``BenchRun/runPeers(into:)``).
struct PeerSize: Sendable {
    /// The words that name the size in the tables.
    let label: String
    /// The payload (its JSON text is about `bytes` long).
    let payload: BenchPayload
    /// Its JSON text's length in bytes, as `JSONEncoder` writes it (the chart's x axis).
    let bytes: Int
    /// Calls per round one at a time.
    let sequentialCount: Int
    /// Calls in flight at once, and calls per round, when pipelined; nil: sequential only.
    let pipeline: (width: Int, count: Int)?

    init(_ label: String, _ payload: BenchPayload, sequential: Int, pipeline: (width: Int, count: Int)?) {
        self.label = label
        self.payload = payload
        self.bytes = (try? JSONEncoder().encode(payload).count) ?? 0
        self.sequentialCount = sequential
        self.pipeline = pipeline
    }
}

extension BenchSettings {
    /// The sizes of the peer comparison: the four of the end-to-end targets (100 B, 10 KB, 1 MB,
    /// 8 MB; sequential and pipelined) and, for the chart, the smallest payload (an empty list,
    /// 25 B), 1 KB and 100 KB (sequential). Up to 10 KB the payload is records (``BenchPayload/make(bytes:)``),
    /// above it mostly one long string (``BenchPayload/text(bytes:)``). 64 calls are in flight when
    /// pipelined, except at 8 MB: 4 (64 × 8 MB would hold about 1.5 GB in the two processes at once, and
    /// a round of ten sides would take minutes). The environment variable `BRIDGEBENCH_PEER_SIZES`
    /// (labels separated by commas, e.g. `1 MB,8 MB`) keeps only those sizes: for A/B runs of two
    /// builds on the rows a change is about.
    var peerPlan: [PeerSize] {
        guard let only = ProcessInfo.processInfo.environment["BRIDGEBENCH_PEER_SIZES"] else { return allPeerSizes }
        let labels = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return allPeerSizes.filter { labels.contains($0.label) }
    }

    private var allPeerSizes: [PeerSize] {
        if smoke {
            return [
                PeerSize("100 B", .make(bytes: 100), sequential: 3, pipeline: (4, 4)),
                PeerSize("10 KB", .make(bytes: 10 * 1024), sequential: 2, pipeline: (4, 4)),
            ]
        }
        return [
            PeerSize("25 B (empty)", .make(bytes: 1), sequential: 300, pipeline: nil),
            PeerSize("100 B", .make(bytes: 100), sequential: 300, pipeline: (64, 1280)),
            PeerSize("1 KB", .make(bytes: 1024), sequential: 200, pipeline: nil),
            PeerSize("10 KB", .make(bytes: 10 * 1024), sequential: 100, pipeline: (64, 256)),
            PeerSize("100 KB", .text(bytes: 100 * 1024), sequential: 30, pipeline: nil),
            PeerSize("1 MB", .text(bytes: 1024 * 1024), sequential: 4, pipeline: (64, 64)),
            PeerSize("8 MB", .text(bytes: 8 * 1024 * 1024), sequential: 1, pipeline: (4, 4)),
        ]
    }

    /// Untimed calls each side makes in each view before the first row (``BenchRun``'s peer
    /// warm-up), so that JavaScriptCore has compiled most of the shim and the relay in its
    /// optimizing tiers before anything is timed.
    var peerWarmUpCalls: Int { smoke ? 0 : 20_000 }

    /// Whether the rows of a payload of `bytes` run in views opened (and warmed up) for them
    /// rather than in the views the smaller rows ran in: from 1 MiB. What ran before moves those
    /// rows by 10–25% (docs/performance.md, "The large rows in views of their own"); new views
    /// give their web processes the same history in every run, the one they have when the size
    /// runs alone with `BRIDGEBENCH_PEER_SIZES` (the app's process keeps its own).
    func peerFreshViews(forBytes bytes: Int) -> Bool { !smoke && bytes >= 1024 * 1024 }

    /// Pairs of views (BridgeKit's and the peers', each view with its web process) the peer rounds
    /// take turns in, as the end-to-end rates do (``BenchSettings/rateViews``).
    var peerViews: Int { smoke ? 1 : 3 }

    /// How many rounds a row of the peer comparison runs (every side once per round, in a rotated
    /// order): at least `minimum`; then more, one turn of the view pairs at a time, until the median
    /// of every ratio the row reports is known to ±`precision` (``Spread/medianPrecision(_:)``),
    /// or the row has run `maximum` rounds or for `budget` seconds (why: docs/performance.md,
    /// "Rounds until the medians are known").
    /// Pipelined rows get more time: their rounds last 3–8 s, ten times a round one at a time.
    func peerRounds(forBytes bytes: Int, pipelined: Bool) -> PeerRounds {
        if smoke { return PeerRounds(minimum: 1, maximum: 1, precision: 1, budget: 0) }
        let large = bytes >= 1024 * 1024
        return PeerRounds(
            minimum: large ? 6 : 9, maximum: large ? 30 : 60, precision: 0.03,
            budget: (large ? 75 : 35) * (pipelined ? 3 : 1))
    }

    /// DSBridge's asynchronous call waits up to 50 ms for its reply's flush: one at a time it
    /// gets at most this many calls per round, so a round stays short (its time per call hardly
    /// moves: 51.1–51.6 ms at 100 B).
    func dsbridgeSequentialCount(_ count: Int) -> Int { min(count, smoke ? 2 : 4) }

    /// Where the round-trip chart goes: the document's picture after a full run; a temporary file
    /// after a smoke run or one of some sizes only (which must not replace the document's picture).
    var chartPath: String {
        smoke || ProcessInfo.processInfo.environment["BRIDGEBENCH_PEER_SIZES"] != nil
            ? NSTemporaryDirectory() + "/bridgebench-round-trips.svg" : "docs/performance-round-trips.svg"
    }

    /// Startup and idle memory: rounds per side.
    var startupRounds: Int { smoke ? 1 : 7 }
    /// How long a new web view idles after its first call before its memory is read.
    var startupIdle: Duration { smoke ? .milliseconds(100) : .seconds(1) }

    /// Many pages: calls per view per round (100 B, one at a time and 64 in flight), rounds.
    var manyPagesPlan: (sequential: Int, pipelined: Int, width: Int, rounds: Int) {
        smoke ? (4, 8, 4, 1) : (1_000, 2_560, 64, 5)
    }
}

/// The rounds of one row of the peer comparison (``BenchSettings/peerRounds(forBytes:pipelined:)``).
struct PeerRounds: Sendable {
    /// Rounds every row runs.
    let minimum: Int
    /// Rounds no row runs more of.
    let maximum: Int
    /// The half-width of the 95% confidence interval of a ratio's median, as a fraction of it,
    /// at which a row stops early.
    let precision: Double
    /// Seconds after which a row starts no further turn.
    let budget: Double

    /// Whether a row that has run `done` rounds for `elapsed` seconds runs another: always below
    /// `minimum`, never from `maximum`, always to finish a turn of `turn` view pairs, and otherwise
    /// while it is within `budget` and some ratio's median is not yet known to `precision`
    /// (`isPrecise`, asked only then).
    func wantsAnother(after done: Int, turn: Int, elapsed: Double, isPrecise: () -> Bool) -> Bool {
        if done < minimum { return true }
        if done >= maximum { return false }
        if done % turn != 0 { return true }
        return elapsed < budget && !isPrecise()
    }
}
