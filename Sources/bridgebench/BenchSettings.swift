import Foundation

/// What to run, from the command line: `bridgebench [--smoke] [--only native|e2e|large|peers|startup|binary]`.
struct BenchSettings: Sendable {
    /// Tiny iteration counts and small payloads: checks that everything runs and prints the table.
    var smoke = false
    /// Only this part, or every part when nil.
    var only: String?
    /// `--profile SIDE BYTES COUNT`: runs only one side of the native path, for
    /// `valgrind --tool=callgrind` (no table). SIDE is a key of ``profileKinds`` or a
    /// ``NativePathBench/BareSide`` raw value.
    var profile: (side: String, bytes: Int, count: Int)?
    /// `--profile-e2e MODE BYTES COUNT`: runs COUNT calls of BYTES one at a time through one
    /// end-to-end side only (a ``BenchPage`` router mode or a ``PeerPage`` mode), for
    /// `perf record` (no table).
    var endToEndProfile: (mode: String, bytes: Int, count: Int)?
    /// `--profile-steps COUNT [BYTES]`: times the steps of a call of BYTES (default 100) in the web
    /// process, in the page's world and in the relay's, COUNT repetitions each (``StepsProfile``;
    /// no table).
    var stepsProfile: (count: Int, bytes: Int)?
    /// The pairs measured in the WebKitGTK parts: BridgeKit's side (the page's call mode, see
    /// ``BenchPage``), the bare side that does the same work without BridgeKit, and the words
    /// that name the pair in the table.
    ///
    /// - The stock `Echo` task passes ``RawJSON`` through and starts immediately: it parses
    ///   nothing, like the bare echo (`bare`), so the ratio is what the bridge itself adds.
    /// - The typed task (``BenchEchoTask``, concurrent) decodes its options and encodes its result
    ///   with Foundation's coders, as a real task does; its bare side (`bare-typed-hop`) decodes
    ///   the same `BenchPayload` with `JSONDecoder` on the GTK thread and encodes it with
    ///   `JSONEncoder` in a Swift task on the global executor before echoing: the same thread hop,
    ///   as on the native path (`bare-hop`).
    static let enginePairs: [(mode: String, bare: String, label: String)] = [
        ("router-raw", "bare", "Echo task (RawJSON) vs bare echo"),
        ("router", "bare-typed-hop", "typed task vs bare echo + codec (same hop)"),
    ]

    /// Pairs measured for the round-trip rates only: the typed task written as a
    /// ``SynchronousBridgeTask``, which, like the bare echo + codec, decodes and encodes on the
    /// thread that delivered the message (the concurrent typed task above hops to a worker thread
    /// and back).
    static let ratePairs: [(mode: String, bare: String, label: String)] =
        enginePairs + [
            ("router-sync", "bare-typed", "typed synchronous task vs bare echo + codec")
        ]

    static let usage = """
        usage: bridgebench [--smoke] [--only native|e2e|large|peers|startup|binary] [--profile SIDE BYTES COUNT]
                   [--profile-e2e MODE BYTES COUNT] [--profile-steps COUNT [BYTES]]
          --smoke   a few seconds in total: tiny counts and small payloads; checks the benchmark runs
                    and prints its table (targets are not judged)
          --only    run one part: native (router vs bare codec), e2e (round trips in WebKitGTK),
                    large (1 MB / 8 MB round trips and peak memory), peers (the bare reply-handler
                    echo and the peer designs, 25 B to 8 MB, and the chart), startup (first call
                    answered, idle memory, four web views at once), binary (binary values vs base64
                    in JSON, both directions, 1 MB and 100 MB, time and peak memory)
          --profile run COUNT native-path calls of BYTES through one side only, for
                    valgrind --tool=callgrind. SIDE: router (a concurrent task), router-immediate,
                    router-sync (a synchronous task), bare (the codec), bare-hop (the codec, in a new
                    Swift task like a concurrent task), bare-immediate (the codec, in a Swift task
                    started on the calling thread, like an immediate task)
          --profile-e2e run COUNT round trips of BYTES one at a time through one end-to-end side,
                    for perf record. MODE: router-sync, router-raw (BridgeKit) or a peer page mode
                    (reply, reply-typed, eval-typed, wvjb, dsbridge, dsbridge-sync, capacitor, cordova)
          --profile-steps time each step of a call in the web process (events between the page's
                    world and the relay's, the relay's reads, the post and its reply), COUNT
                    repetitions per step and round, 7 rounds; prints microseconds per step. BYTES
                    (default 100): from 64 KiB a text payload, with the relay's narrowing split
                    into its passes
        """

    enum ParseError: Error {
        case usage(String)
    }

    static func parse(_ arguments: [String]) throws(ParseError) -> BenchSettings {
        var settings = BenchSettings()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--smoke":
                settings.smoke = true
            case "--only":
                guard let part = rest.popFirst(),
                    ["native", "e2e", "large", "peers", "startup", "binary"].contains(part)
                else {
                    throw .usage(usage)
                }
                settings.only = part
            case "--profile":
                guard let side = rest.popFirst(),
                    profileKinds[side] != nil || NativePathBench.BareSide(rawValue: side) != nil,
                    let bytes = rest.popFirst().flatMap({ Int($0) }), let count = rest.popFirst().flatMap({ Int($0) })
                else {
                    throw .usage(usage)
                }
                settings.profile = (side, bytes, count)
            case "--profile-e2e":
                guard let mode = rest.popFirst(), let bytes = rest.popFirst().flatMap({ Int($0) }),
                    let count = rest.popFirst().flatMap({ Int($0) })
                else {
                    throw .usage(usage)
                }
                settings.endToEndProfile = (mode, bytes, count)
            case "--profile-steps":
                guard let count = rest.popFirst().flatMap({ Int($0) }), count > 0 else { throw .usage(usage) }
                var bytes = 100
                if let next = rest.first, let value = Int(next) {
                    guard value > 0 else { throw .usage(usage) }
                    bytes = value
                    rest = rest.dropFirst()
                }
                settings.stepsProfile = (count, bytes)
            default:
                throw .usage(usage)
            }
        }
        return settings
    }

    /// The router sides `--profile` takes, by name.
    static let profileKinds: [String: BenchTaskKind] = [
        "router": .concurrent, "router-immediate": .immediate, "router-sync": .synchronous,
    ]

    func runs(_ part: String) -> Bool { only == nil || only == part }

    /// Native path: sizes, calls per round, rounds.
    var nativePlan: [(PayloadSize, Int)] {
        smoke
            ? [(.b100, 20), (.kb10, 5)]
            : [(.b100, 20_000), (.kb10, 1_000), (.mb1, 10), (.mb8, 2)]
    }
    /// Rounds per side for a payload of `bytes`: the 100 B rows, a few microseconds per call and
    /// the most exposed to the shared machine's noise, take more rounds (they cost little).
    func nativeRounds(forBytes bytes: Int) -> Int { smoke ? 1 : bytes < 1024 ? 15 : 7 }

    /// End-to-end rates: payloads (label, value) and calls per round, one at a time and pipelined.
    /// Pipelined rows make more calls per round so that a round lasts about as long as one at a
    /// time (half a second or more): a round of a tenth of a second is at the mercy of a single
    /// scheduling hiccup on a two-core machine.
    var ratePlan: [(label: String, payload: BenchPayload, sequential: Int, pipelined: Int)] {
        if smoke { return [("100 B", .make(bytes: 100), 8, 8)] }
        return [
            ("100 B", .make(bytes: 100), 2_000, 10_000),
            ("10 KB text", .text(bytes: 10 * 1024), 1_000, 3_000),
            ("10 KB records", .make(bytes: 10 * 1024), 300, 600),
        ]
    }
    var pipelineWidth: Int { smoke ? 4 : 64 }
    var rateRounds: Int { smoke ? 1 : 9 }
    /// Web views (each with its web process) the end-to-end rate rounds take turns in: three
    /// rounds in each of three views instead of nine in one, since five runs of one view each
    /// disagreed by more than their rounds did (docs/performance.md, "Three web processes per run").
    var rateViews: Int { smoke ? 1 : 3 }

    /// Large payloads: sizes and round trips per round.
    var largePlan: [(PayloadSize, Int)] {
        smoke ? [(.kb1, 2), (.kb64, 1)] : [(.mb1, 4), (.mb8, 1)]
    }
    var largeRounds: Int { smoke ? 1 : 5 }
    /// Peak-memory samples per side and size: single samples move in steps of several MiB
    /// (JavaScriptCore's collections, glibc's arenas), so the median needs more of them than
    /// the timings do. Each is one round trip.
    var memoryRounds: Int { smoke ? 1 : 9 }

    /// Binary values: sizes and calls per round. The environment variable
    /// `BRIDGEBENCH_BINARY_SIZES` (labels separated by commas, e.g. `1 MB`) keeps only those
    /// sizes: for A/B runs of two builds on the rows a change is about (as `BRIDGEBENCH_PEER_SIZES`).
    var binaryPlan: [(PayloadSize, Int)] {
        guard let only = ProcessInfo.processInfo.environment["BRIDGEBENCH_BINARY_SIZES"] else { return allBinarySizes }
        let labels = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return allBinarySizes.filter { labels.contains($0.0.label) }
    }

    private var allBinarySizes: [(PayloadSize, Int)] {
        smoke
            ? [(.kb64, 1)]
            : [
                (.mb1, 4), (PayloadSize(label: "100 MB", bytes: 100 * 1024 * 1024), 1),
                (PayloadSize(label: "1 GB", bytes: 1 << 30), 1),
            ]
    }
    /// Timed rounds per side for binary values of `bytes`.
    func binaryRounds(forBytes bytes: Int) -> Int { smoke || bytes > 256 << 20 ? 1 : bytes > 8 << 20 ? 3 : 5 }
    /// Peak-memory samples per side for binary values of `bytes` (each one call); the row is their
    /// median, so the first call's one-time growth (threads, arenas, WebKit's first byte
    /// requests: 7–11 MiB for a 1 GiB upload) is not taken for the transfer's.
    func binaryMemoryRounds(forBytes bytes: Int) -> Int { smoke ? 1 : bytes > 8 << 20 ? 3 : 5 }
}
