#if WebKitGTK
import Foundation

/// One side of a row of the peer comparison: a name and a way to run `count` calls `width` at a
/// time, returning seconds per call.
struct PeerSide {
    let label: String
    let run: @MainActor (_ key: String, _ count: Int, _ width: Int) async throws -> Double
    /// Caps the calls per round one at a time (DSBridge's 50 ms flush).
    var sequentialCap: ((Int) -> Int)?
}

extension BenchRun {
    /// The engine's limit and the peer designs: BridgeKit (``EngineBench``, ``BenchPage``) against
    /// the bare reply-handler echo, the bare `evaluate_javascript` echo and each peer design
    /// (``PeerEngine``, ``PeerPage``), in one process, every side once per round in a rotated
    /// order; each row's spread is over the rounds. Round `r` runs in the `r % count`th pair of
    /// views (``BenchSettings/peerViews``), each view with a web process of its own; the large
    /// payloads get new, warmed-up views of their own (``BenchSettings/peerFreshViews(forBytes:)``).
    /// Writes the round-trip chart.
    @MainActor
    func runPeers(into table: inout ResultTable) async throws {
        let views = PeerViews()
        do {
            try await views.open(pairs: settings.peerViews)
            try await runPeers(views, into: &table)
        } catch {
            await views.close()
            throw error
        }
        await views.close()
    }

    @MainActor
    private func runPeers(_ views: PeerViews, into table: inout ResultTable) async throws {
        // Which pair of views the sides run in: set before each round (and warm-up) by `measure`.
        let turn = ViewTurn(count: views.engines.count)
        let bridgeTyped = PeerSide(
            label: "BridgeKit, typed task",
            run: { key, count, width in
                try await views.engines[turn.index].run("router-sync", key: key, count: count, width: width)
            })
        let bridgeRaw = PeerSide(
            label: "BridgeKit, Echo task",
            run: { key, count, width in
                try await views.engines[turn.index].run("router-raw", key: key, count: count, width: width)
            })
        let settings = self.settings
        func peer(_ mode: String, _ label: String) -> PeerSide {
            var side = PeerSide(
                label: label,
                run: { key, count, width in
                    try await views.peerEngines[turn.index].run(mode, key: key, count: count, width: width)
                })
            if mode == "dsbridge" { side.sequentialCap = { settings.dsbridgeSequentialCount($0) } }
            return side
        }
        let bareReply = peer("reply", "bare reply echo")
        let bareReplyTyped = peer("reply-typed", "bare reply echo + codec")
        let bareEval = peer("eval-typed", "bare evaluate_javascript echo + codec")
        let designs = PeerEngine.designs.map { peer($0.mode, $0.label) }
        let sides = [bridgeTyped, bridgeRaw, bareReply, bareReplyTyped, bareEval] + designs
        // Every ratio a row reports: BridgeKit's side and the other.
        let comparisons =
            [(bridgeRaw, bareReply), (bridgeTyped, bareReplyTyped), (bridgeTyped, bareEval)]
            + designs.map { (bridgeTyped, $0) }

        var chart = RoundTripChart(
            title: "Round-trip time against payload size, one call at a time (WebKitGTK \(Self.webKitVersion))")
        var matrix = PeerMatrix(designs: designs.map(\.label))
        try await warmUp(sides, views: views, turn: turn)
        for size in settings.peerPlan {
            if settings.peerFreshViews(forBytes: size.bytes) && views.isUsed {
                await views.close()
                try await views.open(pairs: settings.peerViews)
                try await warmUp(sides, views: views, turn: turn)
                progress("peers \(size.label): new views, warmed up")
            }
            views.isUsed = true
            let key = "peer \(size.label)"
            try await views.setPayload(size.payload, key: key)
            var modes = [("sequential", 1, size.sequentialCount)]
            if let pipeline = size.pipeline {
                modes.append(("pipelined ×\(pipeline.width)", pipeline.width, pipeline.count))
            }
            for (mode, width, count) in modes {
                let rounds = try await measure(
                    sides, comparisons: comparisons, key: key, count: count, width: width,
                    rounds: settings.peerRounds(forBytes: size.bytes, pipelined: width > 1), turn: turn)
                let roundCount = rounds[bridgeTyped.label]?.count ?? 0
                let spread = { (side: PeerSide) in Spread(rounds[side.label] ?? []) }
                // BridgeKit's side ÷ the other, in rates: the other's seconds ÷ BridgeKit's, round by round.
                let ratio = { (bridge: PeerSide, other: PeerSide) in
                    Paired(first: rounds[bridge.label] ?? [], second: rounds[other.label] ?? []).ratio
                }
                let row = "\(size.label) \(mode)"
                progress(
                    "peers \(row), \(roundCount) rounds: "
                        + sides.map { "\($0.label) \(spread($0).rateText)" }.joined(separator: "; "))
                let judged = size.pipeline != nil  // the four sizes of the targets
                let limitTarget: ResultTable.Target? = judged ? .atLeast(0.9) : nil
                table.add(
                    "engine limit", "\(row), Echo task vs bare reply echo, round trips per second",
                    bridge: spread(bridgeRaw).rateText, bare: spread(bareReply).rateText,
                    ratio: ratio(bridgeRaw, bareReply), target: limitTarget)
                table.add(
                    "engine limit", "\(row), typed task vs bare reply echo + codec, round trips per second",
                    bridge: spread(bridgeTyped).rateText, bare: spread(bareReplyTyped).rateText,
                    ratio: ratio(bridgeTyped, bareReplyTyped), target: limitTarget)
                table.add(
                    "engine limit", "\(row), typed task vs bare evaluate_javascript echo + codec (second bare row)",
                    bridge: spread(bridgeTyped).rateText, bare: spread(bareEval).rateText,
                    ratio: ratio(bridgeTyped, bareEval), target: nil)
                for design in designs {
                    let ratio = ratio(bridgeTyped, design)
                    matrix.add(row: row, design: design.label, ratio: ratio.median)
                    table.add(
                        "peer designs", "\(row), typed task vs \(design.label), round trips per second",
                        bridge: spread(bridgeTyped).rateText, bare: spread(design).rateText,
                        ratio: ratio, target: judged ? .atLeast(1) : nil)
                }
                if width == 1 {
                    for side in [bridgeTyped, bareReplyTyped, bareEval] + designs {
                        chart.add(series: side.label, bytes: size.bytes, seconds: spread(side).median)
                    }
                }
            }
            try await views.dropPayload(key: key)
        }
        // Memory last (in the first pair of views): the fixed mmap threshold it needs would change the timed rows' allocator.
        MemoryProbe.fixMmapThreshold()
        let (engine, peers) = (views.engines[0], views.peerEngines[0])
        for size in settings.peerPlan where size.bytes >= 1 << 20 {
            let key = "peer memory \(size.label)"
            try await engine.setPayload(size.payload, key: key)
            try await peers.setPayload(size.payload, key: key)
            try await addMemoryRows(size, key: key, engine: engine, peers: peers, into: &table)
            try await engine.dropPayload(key: key)
            await peers.dropPayload(key: key)
        }
        print(
            "\nBridgeKit's typed task ÷ each peer design (round trips per second, medians of the rounds' paired ratios; "
                + "each row's rounds in its progress line; > 1: BridgeKit ahead)\n")
        print(matrix.render())
        do {
            try chart.svg().write(toFile: settings.chartPath, atomically: true, encoding: .utf8)
            progress("chart written to \(settings.chartPath)")
        } catch {
            progress("chart not written to \(settings.chartPath): \(error)")
        }
    }

    /// The UI process's peak memory growth during one round trip of payload `key`, BridgeKit's
    /// tasks against the bare reply-handler echoes (issue 25's target: at most 3x the payload),
    /// medians of ``BenchSettings/memoryRounds`` alternating measurements
    /// (``MemoryProbe/peakGrowth(web:during:)``; no verifying call inside the measurement).
    @MainActor
    private func addMemoryRows(
        _ size: PeerSize, key: String, engine: EngineBench, peers: PeerEngine, into table: inout ResultTable
    ) async throws {
        let pairs = [
            ("router-sync", "reply-typed", "typed task vs bare reply echo + codec"),
            ("router-raw", "reply", "Echo task vs bare reply echo"),
        ]
        var typedMedian: Double?
        for (bridgeMode, bareMode, label) in pairs {
            var bridge: [Double] = []
            var bare: [Double] = []
            for _ in 0..<settings.memoryRounds {
                let bridgeGrowth = try await MemoryProbe.peakGrowth(web: nil) {
                    _ = try await engine.run(bridgeMode, key: key, count: 1, verify: false)
                }
                let bareGrowth = try await MemoryProbe.peakGrowth(web: nil) {
                    _ = try await peers.run(bareMode, key: key, count: 1, verify: false)
                }
                bridge.append(Double(bridgeGrowth.ui))
                bare.append(Double(bareGrowth.ui))
            }
            let bridgeMedian = Measure.median(bridge)
            let bareMedian = Measure.median(bare)
            if bridgeMode == "router-sync" { typedMedian = bridgeMedian }
            progress(
                "peers \(size.label) UI peak growth, \(label): +\(ResultTable.mebibytes(bridgeMedian)) vs "
                    + "+\(ResultTable.mebibytes(bareMedian))")
            table.add(
                "engine limit", "\(size.label) peak memory growth, UI process ÷ payload, \(label)",
                bridge: ResultTable.mebibytes(bridgeMedian), bare: ResultTable.mebibytes(bareMedian),
                ratio: bridgeMedian / Double(size.bytes), target: .atMost(3))
        }
        // The floor of any typed task in this process: Foundation's codec alone, decoding the
        // payload's JSON into its `Decodable` value and encoding it again, no web view involved.
        let json = try JSONEncoder().encode(size.payload)
        var codec: [Double] = []
        for _ in 0..<settings.memoryRounds {
            let growth = try await MemoryProbe.peakGrowth(web: nil) {
                let value = try JSONDecoder().decode(BenchPayload.self, from: json)
                _ = try JSONEncoder().encode(value).count
            }
            codec.append(Double(growth.ui))
        }
        let codecMedian = Measure.median(codec)
        table.add(
            "engine limit",
            "\(size.label) peak memory growth, UI process: typed task vs Foundation's JSON codec alone (decode + encode)",
            bridge: typedMedian.map { ResultTable.mebibytes($0) } ?? "?", bare: ResultTable.mebibytes(codecMedian),
            ratio: typedMedian.map { $0 / codecMedian }, target: nil)
    }

    /// Brings every side's JavaScript to its steady state before the first row: each side makes
    /// ``BenchSettings/peerWarmUpCalls`` calls of 100 B, 64 in flight (a peer's own cap, such as
    /// DSBridge's flush, divides them), untimed. JavaScriptCore compiles a function in its
    /// optimizing tiers only after thousands of calls, on worker threads that share the machine's
    /// cores with the measured processes: BridgeKit's shim and relay were still being compiled
    /// after 10,000 calls of 100 B (docs/performance.md, "The 100 B gap on a quiet machine"), a
    /// bare echo's few lines hardly at all, so without this the first rows timed the compiler too.
    @MainActor
    private func warmUp(_ sides: [PeerSide], views: PeerViews, turn: ViewTurn) async throws {
        let calls = settings.peerWarmUpCalls
        guard calls > 0 else { return }
        let key = "peer warm-up"
        try await views.setPayload(BenchPayload.make(bytes: 100), key: key)
        for index in 0..<turn.count {
            turn.index = index
            for side in sides {
                let count = side.sequentialCap.map { $0(calls) * 64 } ?? calls
                _ = try await side.run(key, count, 64)
            }
        }
        try await views.dropPayload(key: key)
    }

    /// Runs every side once per round, one warm-up call first in each pair of views, rotating the
    /// order each round so no side always runs first (cold caches) or last; round `r` runs in
    /// pair `r % turn.count`. Runs `rounds.minimum` rounds, then whole turns of the view pairs
    /// until every comparison's paired ratio has its median to `rounds.precision`, or the row
    /// reached `rounds.maximum` rounds or `rounds.budget` seconds.
    /// - Returns: each side's seconds per call, round by round, by label.
    @MainActor
    private func measure(
        _ sides: [PeerSide], comparisons: [(PeerSide, PeerSide)], key: String, count: Int, width: Int,
        rounds: PeerRounds, turn: ViewTurn
    ) async throws -> [String: [Double]] {
        func calls(_ side: PeerSide) -> Int { width == 1 ? (side.sequentialCap?(count) ?? count) : count }
        for index in 0..<turn.count {
            turn.index = index
            for side in sides { _ = try await side.run(key, max(calls(side) / 10, 1), width) }
        }
        var samples: [String: [Double]] = [:]
        func isPrecise() -> Bool {
            comparisons.allSatisfy { bridge, other in
                let ratios = zip(samples[bridge.label] ?? [], samples[other.label] ?? []).map { $0.1 / $0.0 }
                return Spread.medianPrecision(ratios) <= rounds.precision
            }
        }
        let start = Measure.now()
        var round = 0
        while rounds.wantsAnother(after: round, turn: turn.count, elapsed: Measure.now() - start, isPrecise: isPrecise)
        {
            turn.index = round % turn.count
            for index in sides.indices {
                let side = sides[(index + round) % sides.count]
                samples[side.label, default: []].append(try await side.run(key, calls(side), width))
            }
            round += 1
        }
        return samples
    }

    /// The WebKitGTK version the process runs with, e.g. "2.50.6".
    static var webKitVersion: String { PeerEngine.webKitVersion }
}

/// Which of several pairs of views (BridgeKit's and the peers') the peer sides run in now.
@MainActor
final class ViewTurn {
    let count: Int
    var index = 0

    init(count: Int) { self.count = max(count, 1) }
}

/// The table of BridgeKit ÷ each design: one row per size and mode, one column per design.
struct PeerMatrix {
    let designs: [String]
    private var rows: [(row: String, ratios: [String: Double])] = []

    init(designs: [String]) { self.designs = designs }

    mutating func add(row: String, design: String, ratio: Double) {
        if rows.last?.row != row { rows.append((row, [:])) }
        rows[rows.count - 1].ratios[design] = ratio
    }

    func render() -> String {
        var lines = [
            "| Payload, mode | " + designs.joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---:|", count: designs.count),
        ]
        for row in rows {
            lines.append(
                "| \(row.row) | "
                    + designs.map { row.ratios[$0].map { String(format: "%.2fx", $0) } ?? "—" }
                    .joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
#endif
