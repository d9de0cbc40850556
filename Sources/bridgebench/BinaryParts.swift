import Foundation

#if WebKitGTK
extension BenchRun {
    /// Binary values (issue 26): the same bytes page → native and native → page through
    /// BridgeKit's binary values and as base64 in JSON through BridgeKit, alternating round by
    /// round in one web view (``BinaryBench``); time and peak memory growth of both processes.
    /// The table's "Bare" column holds the base64 side here; the bare custom-scheme handler
    /// without BridgeKit is not measured yet.
    @MainActor
    func runBinaryParts(into table: inout ResultTable) async throws {
        guard settings.runs("binary") else { return }
        let bench = try await BinaryBench.open()
        do {
            for (size, count) in settings.binaryPlan {
                for (direction, suffix) in [("page → native", "up"), ("native → page", "down")] {
                    try await runBinary(
                        bench, size: size, count: count, direction: direction, binary: "binary-\(suffix)",
                        base64: "base64-\(suffix)", into: &table)
                }
            }
        } catch {
            await bench.close()
            throw error
        }
        await bench.close()
    }

    @MainActor
    private func runBinary(
        _ bench: BinaryBench, size: PayloadSize, count: Int, direction: String, binary: String, base64: String,
        into table: inout ResultTable
    ) async throws {
        // The memory calls come first and double as the warm-up.
        var binaryMemories: [(ui: Int, web: Int?)] = []
        var base64Memories: [(ui: Int, web: Int?)] = []
        for _ in 0..<settings.binaryMemoryRounds(forBytes: size.bytes) {
            binaryMemories.append(try await bench.peakMemory(binary, bytes: size.bytes))
            base64Memories.append(try await bench.peakMemory(base64, bytes: size.bytes))
        }
        let binaryMemory = Self.medianMemory(binaryMemories)
        let base64Memory = Self.medianMemory(base64Memories)
        let (binaryTime, base64Time) = try await Measure.alternatingValues(
            rounds: settings.binaryRounds(forBytes: size.bytes),
            { try await bench.run(binary, bytes: size.bytes, count: count) },
            { try await bench.run(base64, bytes: size.bytes, count: count) })
        let web = { (bytes: Int?) in bytes.map { ResultTable.mebibytes(Double($0)) } ?? "?" }
        progress(
            "binary \(size.label) \(direction): binary \(ResultTable.duration(binaryTime)), base64 \(ResultTable.duration(base64Time)); "
                + "UI peak +\(ResultTable.mebibytes(Double(binaryMemory.ui))) vs +\(ResultTable.mebibytes(Double(base64Memory.ui))); "
                + "web peak +\(web(binaryMemory.web)) vs +\(web(base64Memory.web))")
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
