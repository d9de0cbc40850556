import BridgeKit
import Foundation

#if WebKitGTK
extension BenchRun {
    /// Binary values (issue 26): the same bytes page → native and native → page through
    /// BridgeKit's binary values and as base64 in JSON through BridgeKit, alternating round by
    /// round in one web view (``BinaryBench``); time and peak memory growth of both processes.
    /// A bare custom-scheme handler with no bridge (``BareBinaryBench``, a second web view with a
    /// web context of its own) moves the same bytes in the same rounds. The table's "Bare" column
    /// holds the base64 side in the rows against base64 and the bare handler in the rows against it.
    @MainActor
    func runBinaryParts(into table: inout ResultTable) async throws {
        guard settings.runs("binary") else { return }
        let bench = try await BinaryBench.open()
        let bare: BareBinaryBench
        do {
            bare = try await BareBinaryBench.open()
        } catch {
            await bench.close()
            throw error
        }
        do {
            for (size, count) in settings.binaryPlan {
                for (direction, suffix) in [("page → native", "up"), ("native → page", "down")] {
                    try await runBinary(
                        bench, bare, size: size, count: count, direction: direction, suffix: suffix, into: &table)
                }
            }
        } catch {
            bare.close()
            await bench.close()
            throw error
        }
        bare.close()
        await bench.close()
    }

    @MainActor
    private func runBinary(
        _ bench: BinaryBench, _ bare: BareBinaryBench, size: PayloadSize, count: Int, direction: String,
        suffix: String, into table: inout ResultTable
    ) async throws {
        let binary = "binary-\(suffix)"
        let base64 = "base64-\(suffix)"
        let bareMode = "bare-\(suffix)"
        // Base64 in JSON only up to the router's raised message limit (256 MiB of JSON).
        let withBase64 = size.bytes <= 128 << 20
        // The memory calls come first and double as the warm-up (their median leaves the first out).
        var binaryMemories: [(ui: Int, web: Int?)] = []
        var base64Memories: [(ui: Int, web: Int?)] = []
        var bareMemories: [(ui: Int, web: Int?)] = []
        for _ in 0..<settings.binaryMemoryRounds(forBytes: size.bytes) {
            binaryMemories.append(try await bench.peakMemory(binary, bytes: size.bytes))
            if withBase64 { base64Memories.append(try await bench.peakMemory(base64, bytes: size.bytes)) }
            bareMemories.append(try await bare.peakMemory(bareMode, bytes: size.bytes))
        }
        let binaryMemory = Self.medianMemory(binaryMemories)
        let base64Memory = Self.medianMemory(withBase64 ? base64Memories : [(0, nil)])
        let bareMemory = Self.medianMemory(bareMemories)
        // Three sides, round by round, the order rotating every round.
        var sides: [() async throws -> Double] = [
            { try await bench.run(binary, bytes: size.bytes, count: count) },
            { try await bare.run(bareMode, bytes: size.bytes, count: count) },
        ]
        if withBase64 { sides.append({ try await bench.run(base64, bytes: size.bytes, count: count) }) }
        var times: [[Double]] = [[], [], []]
        for round in 0..<max(settings.binaryRounds(forBytes: size.bytes), 1) {
            for step in 0..<sides.count {
                let side = (round + step) % sides.count
                times[side].append(try await sides[side]())
            }
        }
        let binaryTime = Measure.median(times[0])
        let bareTime = Measure.median(times[1])
        let base64Time = withBase64 ? Measure.median(times[2]) : .nan
        let web = { (bytes: Int?) in bytes.map { ResultTable.mebibytes(Double($0)) } ?? "?" }
        let chunk = Double(BinaryLimits().chunkBytes)
        progress(
            "binary \(size.label) \(direction): binary \(ResultTable.duration(binaryTime)), base64 \(withBase64 ? ResultTable.duration(base64Time) : "-"), bare \(ResultTable.duration(bareTime)); "
                + "UI peak +\(ResultTable.mebibytes(Double(binaryMemory.ui))) / +\(ResultTable.mebibytes(Double(base64Memory.ui))) / +\(ResultTable.mebibytes(Double(bareMemory.ui))); "
                + "web peak +\(web(binaryMemory.web)) / +\(web(base64Memory.web)) / +\(web(bareMemory.web))")
        // Issue 26's target: at least 0.8x the bare transport's throughput, so at most 1.25x its time.
        table.add(
            "binary values", "\(size.label) \(direction), time per call, binary vs bare scheme handler",
            bridge: ResultTable.duration(binaryTime), bare: ResultTable.duration(bareTime),
            ratio: binaryTime / bareTime, target: .atMost(1.25))
        table.add(
            "binary values", "\(size.label) \(direction), peak memory growth, UI process, binary vs bare handler",
            bridge: ResultTable.mebibytes(Double(binaryMemory.ui)), bare: ResultTable.mebibytes(Double(bareMemory.ui)),
            ratio: nil, target: nil)
        // Issue 26's target for a stream: the UI process's peak under 2x its chunk budget
        // (`BinaryLimits.chunkBytes`). Uploads stream (in 1 MiB parts), and so do downloads over
        // `BinaryBench.largestHeldDownload`; a smaller download of `Data` is held whole by the
        // task that made it, so its ratio is shown without a target.
        table.add(
            "binary values", "\(size.label) \(direction), peak memory growth, UI process ÷ chunk budget (Bare column)",
            bridge: ResultTable.mebibytes(Double(binaryMemory.ui)), bare: ResultTable.mebibytes(chunk),
            ratio: Double(binaryMemory.ui) / chunk,
            target: suffix == "up" || size.bytes > BinaryBench.largestHeldDownload ? .atMost(2) : nil)
        if let binaryWeb = binaryMemory.web, let bareWeb = bareMemory.web {
            table.add(
                "binary values", "\(size.label) \(direction), peak memory growth, web process, binary vs bare handler",
                bridge: ResultTable.mebibytes(Double(binaryWeb)), bare: ResultTable.mebibytes(Double(bareWeb)),
                ratio: nil, target: nil)
        }
        guard withBase64 else { return }
        // Issue 26's target: at least 3x the throughput of base64 in JSON, so at most 1/3 of its time.
        table.add(
            "binary values", "\(size.label) \(direction), time per call, binary (Bare column: base64 in JSON)",
            bridge: ResultTable.duration(binaryTime), bare: ResultTable.duration(base64Time),
            ratio: binaryTime / base64Time, target: .atMost(1.0 / 3.0))
        table.add(
            "binary values",
            "\(size.label) \(direction), peak memory growth, UI process, binary (Bare column: base64); ratio ÷ size",
            bridge: ResultTable.mebibytes(Double(binaryMemory.ui)),
            bare: ResultTable.mebibytes(Double(base64Memory.ui)),
            ratio: Double(binaryMemory.ui) / Double(size.bytes), target: nil)
        if let binaryWeb = binaryMemory.web, let base64Web = base64Memory.web {
            table.add(
                "binary values",
                "\(size.label) \(direction), peak memory growth, web process, binary (Bare column: base64); ratio ÷ size",
                bridge: ResultTable.mebibytes(Double(binaryWeb)), bare: ResultTable.mebibytes(Double(base64Web)),
                ratio: Double(binaryWeb) / Double(size.bytes), target: nil)
        }
    }
}
#else
extension BenchRun {
    /// Without the WebKitGTK trait there is no engine: the binary-values part is skipped.
    func runBinaryParts(into table: inout ResultTable) async throws {
        guard settings.runs("binary") else { return }
        print("bench: binary-values part skipped: built without the WebKitGTK trait (swift build --traits WebKitGTK)")
    }
}
#endif
