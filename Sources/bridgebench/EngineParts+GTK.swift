#if WebKitGTK
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension BenchRun {
    /// Parts 2 and 3: round trips in WebKitGTK, BridgeKit against the bare echo on the same page.
    @MainActor
    func runEngineParts(into table: inout ResultTable) async throws {
        guard settings.runs("e2e") || settings.runs("large") else { return }
        var engines: [EngineBench] = []
        do {
            let views = settings.runs("e2e") ? settings.rateViews : 1
            for _ in 0..<views { engines.append(try await EngineBench.open()) }
            if settings.runs("e2e") { try await runRates(engines, into: &table) }
            if settings.runs("large") { try await runLarge(engines[0], into: &table) }
        } catch {
            for engine in engines { await engine.close() }
            throw error
        }
        for engine in engines { await engine.close() }
    }

    /// Round trips per second with a small payload, one at a time and many in flight, for each
    /// of the pairs in ``BenchSettings/ratePairs``. Round `r` of a row runs in `engines[r % count]`:
    /// each view has a web process of its own, whose compiled code and heap differ from the next
    /// one's, so a row's rounds sample several processes instead of one (``BenchSettings/rateViews``).
    @MainActor
    private func runRates(_ engines: [EngineBench], into table: inout ResultTable) async throws {
        for (label, payload, sequentialCount, pipelinedCount) in settings.ratePlan {
            let key = "rate \(label)"
            for engine in engines { try await engine.setPayload(payload, key: key) }
            for (routerMode, bareMode, task) in BenchSettings.ratePairs {
                for (mode, width, count) in [
                    ("sequential", 1, sequentialCount),
                    ("pipelined ×\(settings.pipelineWidth)", settings.pipelineWidth, pipelinedCount),
                ] {
                    // Warm-up: code paths, JIT, caches.
                    for engine in engines {
                        _ = try await engine.run(bareMode, key: key, count: max(count / 10, 2), width: width)
                        _ = try await engine.run(routerMode, key: key, count: max(count / 10, 2), width: width)
                    }
                    var cpu: [String: [(ui: Double, web: Double?)]] = [:]
                    // Each side counts its own rounds: both sides of round r run in the same view.
                    var routerRounds = 0
                    var bareRounds = 0
                    let paired = try await Measure.alternatingValues(
                        rounds: settings.rateRounds,
                        {
                            let engine = engines[routerRounds % engines.count]
                            routerRounds += 1
                            let seconds = try await engine.run(routerMode, key: key, count: count, width: width)
                            cpu["router", default: []].append(engine.lastCPU)
                            return seconds
                        },
                        {
                            let engine = engines[bareRounds % engines.count]
                            bareRounds += 1
                            let seconds = try await engine.run(bareMode, key: key, count: count, width: width)
                            cpu["bare", default: []].append(engine.lastCPU)
                            return seconds
                        })
                    let (router, bare) = (paired.firstMedian, paired.secondMedian)
                    progress(
                        "e2e \(label) \(mode), \(task): router \(ResultTable.rate(1 / router)), bare \(ResultTable.rate(1 / bare)); "
                            + "CPU per call router \(Self.cpuText(cpu["router"])), bare \(Self.cpuText(cpu["bare"]))")
                    table.add(
                        "end to end", "\(label) \(mode), \(task), round trips per second",
                        bridge: ResultTable.rate(1 / router),
                        bare: ResultTable.rate(1 / bare), ratio: paired.ratio, target: .atLeast(0.85))
                }
            }
            for engine in engines { try await engine.dropPayload(key: key) }
        }
    }

    /// The median CPU time per call of the UI and the web process, for the progress lines.
    static func cpuText(_ samples: [(ui: Double, web: Double?)]?) -> String {
        let samples = samples ?? []
        let ui = Measure.median(samples.map(\.ui))
        let web = Measure.median(samples.compactMap(\.web))
        return "UI \(ResultTable.duration(ui)) + web \(web.isNaN ? "?" : ResultTable.duration(web))"
    }

    /// Large payloads: round-trip time and peak memory of both processes, for each of
    /// the pairs in ``BenchSettings/enginePairs``.
    @MainActor
    private func runLarge(_ engine: EngineBench, into table: inout ResultTable) async throws {
        for (routerMode, bareMode, task) in BenchSettings.enginePairs {
            try await runLarge(engine, routerMode: routerMode, bareMode: bareMode, task: task, into: &table)
        }
    }

    @MainActor
    private func runLarge(
        _ engine: EngineBench, routerMode: String, bareMode: String, task: String, into table: inout ResultTable
    ) async throws {
        var perByte: [(PayloadSize, Double, Double)] = []
        var uiGrowth: [(size: PayloadSize, router: Int, bare: Int)] = []
        for (size, count) in settings.largePlan {
            let key = "large \(size.label)"
            try await engine.setPayload(BenchPayload.text(bytes: size.bytes), key: key)
            _ = try await engine.run(bareMode, key: key, count: 1)
            _ = try await engine.run(routerMode, key: key, count: 1)
            var bareMemories: [(ui: Int, web: Int?)] = []
            var routerMemories: [(ui: Int, web: Int?)] = []
            for _ in 0..<settings.memoryRounds {
                bareMemories.append(try await peakMemory(engine, mode: bareMode, key: key))
                routerMemories.append(try await peakMemory(engine, mode: routerMode, key: key))
            }
            let bareMemory = Self.medianMemory(bareMemories)
            let routerMemory = Self.medianMemory(routerMemories)
            let paired = try await Measure.alternatingValues(
                rounds: settings.largeRounds,
                {
                    try await engine.run(routerMode, key: key, count: count)
                },
                {
                    try await engine.run(bareMode, key: key, count: count)
                })
            let (router, bare) = (paired.firstMedian, paired.secondMedian)
            try await engine.dropPayload(key: key)
            perByte.append((size, router / Double(size.bytes), bare / Double(size.bytes)))
            uiGrowth.append((size, routerMemory.ui, bareMemory.ui))
            progress(
                "large \(size.label), \(task): router \(ResultTable.duration(router)), bare \(ResultTable.duration(bare)); "
                    + "UI peak +\(ResultTable.mebibytes(Double(routerMemory.ui))) vs +\(ResultTable.mebibytes(Double(bareMemory.ui))); "
                    + "web peak +\(routerMemory.web.map { ResultTable.mebibytes(Double($0)) } ?? "?") vs +\(bareMemory.web.map { ResultTable.mebibytes(Double($0)) } ?? "?")"
            )
            table.add(
                "large payload", "\(size.label) round trip, \(task), time", bridge: ResultTable.duration(router),
                bare: ResultTable.duration(bare), ratio: paired.inverseRatio, target: .atMost(1.5))
            // A round trip holds the payload at least once; less growth than that means it reused
            // memory an earlier round left (JavaScriptCore's heap is not trimmed): not judged.
            let plausible = routerMemory.ui >= size.bytes
            table.add(
                "large payload",
                "\(size.label) peak memory growth, \(task), UI process ÷ payload"
                    + (plausible ? "" : " (reused memory, not judged)"),
                bridge: ResultTable.mebibytes(Double(routerMemory.ui)),
                bare: ResultTable.mebibytes(Double(bareMemory.ui)),
                ratio: Double(routerMemory.ui) / Double(size.bytes), target: plausible ? .atMost(4) : nil)
            if let routerWeb = routerMemory.web, let bareWeb = bareMemory.web {
                table.add(
                    "large payload", "\(size.label) peak memory growth, \(task), web process ÷ payload",
                    bridge: ResultTable.mebibytes(Double(routerWeb)), bare: ResultTable.mebibytes(Double(bareWeb)),
                    ratio: Double(routerWeb) / Double(size.bytes), target: nil)
            }
        }
        if let small = perByte.first, let large = perByte.last, large.0.bytes > small.0.bytes {
            table.add(
                "large payload", "linearity, \(task): time per byte, \(large.0.label) / \(small.0.label)",
                bridge: String(format: "%.2f", large.1 / small.1), bare: String(format: "%.2f", large.2 / small.2),
                ratio: large.1 / small.1, target: .atMost(1.25))
        }
        // What each further payload byte costs, without the fixed growth of any round trip
        // (JavaScriptCore's and WebKit's own, which the bare side shows at 1 MB as well).
        if let small = uiGrowth.first, let large = uiGrowth.last, large.size.bytes > small.size.bytes {
            let bytes = Double(large.size.bytes - small.size.bytes)
            let router = Double(large.router - small.router) / bytes
            let bare = Double(large.bare - small.bare) / bytes
            let plausible = large.router >= large.size.bytes && small.router >= small.size.bytes
            table.add(
                "large payload",
                "UI peak memory per further payload byte, \(task), (\(large.size.label) − \(small.size.label)) ÷ \(ResultTable.mebibytes(bytes))"
                    + (plausible ? "" : " (reused memory, not judged)"),
                bridge: String(format: "%.2f B", router), bare: String(format: "%.2f B", bare), ratio: router,
                target: plausible ? .atMost(4) : nil)
        }
    }

    /// The medians of several memory measurements.
    static func medianMemory(_ samples: [(ui: Int, web: Int?)]) -> (ui: Int, web: Int?) {
        let ui = Measure.median(samples.map { Double($0.ui) })
        let web = samples.compactMap(\.web)
        return (Int(ui), web.count == samples.count ? Int(Measure.median(web.map(Double.init))) : nil)
    }

    /// The growth of the peak resident memory of this (UI) process and of the web process during
    /// one round trip of `key` through `mode`, in bytes (``MemoryProbe/peakGrowth(web:during:)``).
    @MainActor
    private func peakMemory(_ engine: EngineBench, mode: String, key: String) async throws -> (ui: Int, web: Int?) {
        // Exactly one round trip: the verifying call that `run` makes first by default would leave
        // its garbage (JavaScriptCore strings not yet collected, freed chunks glibc keeps after
        // raising its mmap threshold) under the measured call's peak. Every other run verifies.
        try await MemoryProbe.peakGrowth(web: engine.webProcess) {
            _ = try await engine.run(mode, key: key, count: 1, verify: false)
        }
    }
}
#endif
