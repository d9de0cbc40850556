import BridgeKit
import Foundation

/// One benchmark run: every part the settings ask for, then the table.
struct BenchRun {
    let settings: BenchSettings

    /// Runs the parts and prints the table.
    /// - Returns: the process exit status: 0, or 1 when a part failed (a wrong reply, a timeout).
    ///   Missed targets are reported in the table, not in the status.
    func run() async -> Int32 {
        if let profile = settings.profile {
            do {
                let kind = BenchSettings.profileKinds[profile.side] ?? .concurrent
                try await NativePathBench(
                    size: PayloadSize(label: "\(profile.bytes) B", bytes: profile.bytes),
                    iterations: profile.count, rounds: 1, kind: kind
                )
                .profile(bare: NativePathBench.BareSide(rawValue: profile.side))
                return 0
            } catch {
                FileHandle.standardError.write(Data("bridgebench: \(error)\n".utf8))
                return 1
            }
        }
        if let profile = settings.endToEndProfile { return await runEndToEndProfile(profile) }
        if let steps = settings.stepsProfile { return await runStepsProfile(count: steps.count, bytes: steps.bytes) }
        var table = ResultTable(judges: !settings.smoke)
        do {
            if settings.runs("native") {
                try await runNative(into: &table)
            }
            try await runEngineParts(into: &table)
            try await runComparisonParts(into: &table)
            try await runBinaryParts(into: &table)
        } catch {
            FileHandle.standardError.write(Data("bridgebench: \(error)\n".utf8))
            print(table.render())
            return 1
        }
        print(table.render())
        if settings.smoke {
            print("bench: smoke run finished, \(table.rows.count) rows")
        } else {
            print("bench: \(table.rows.count) rows, \(table.misses) targets missed")
        }
        return 0
    }

    private func runNative(into table: inout ResultTable) async throws {
        for kind in BenchTaskKind.allCases {
            try await runNative(kind, into: &table)
        }
    }

    /// The native rows for the bench task of `kind`.
    private func runNative(_ kind: BenchTaskKind, into table: inout ResultTable) async throws {
        let how =
            switch kind {
            case .concurrent: "\(kind.label) (bare side: same hop)"
            case .immediate: "\(kind.label) (bare side: Task.immediate)"
            case .synchronous: kind.label
            }
        var outcomes: [NativePathBench.Outcome] = []
        for (size, iterations) in settings.nativePlan {
            let rounds = settings.nativeRounds(forBytes: size.bytes)
            let outcome = try await NativePathBench(size: size, iterations: iterations, rounds: rounds, kind: kind)
                .run()
            outcomes.append(outcome)
            progress(
                "native \(size.label), \(how): router \(ResultTable.duration(outcome.router.wall)) (cpu \(ResultTable.duration(outcome.router.cpu))), bare \(ResultTable.duration(outcome.bare.wall)) (cpu \(ResultTable.duration(outcome.bare.cpu)))"
            )
            table.add(
                "native path", "\(size.label) call, \(how), CPU time per call",
                bridge: ResultTable.duration(outcome.router.cpu),
                bare: ResultTable.duration(outcome.bare.cpu), ratio: outcome.router.cpu / outcome.bare.cpu,
                target: .atMost(1.25))
        }
        if let small = outcomes.first(where: { $0.size.bytes >= 1024 * 1024 }), let large = outcomes.last,
            large.size.bytes > small.size.bytes
        {
            let growth = (large.router.cpu / Double(large.size.bytes)) / (small.router.cpu / Double(small.size.bytes))
            table.add(
                "native path", "linearity, \(how): CPU time per byte, \(large.size.label) / \(small.size.label)",
                bridge: String(format: "%.2f", growth), bare: "—", ratio: growth, target: .atMost(1.25))
        }
    }

    /// Prints a progress line on stderr (the table goes to stdout).
    func progress(_ line: String) {
        FileHandle.standardError.write(Data("bridgebench: \(line)\n".utf8))
    }
}
