import Foundation

#if WebKitGTK
extension BenchRun {
    /// The parts that compare BridgeKit with the engine's limit, the peer designs and itself at
    /// startup and across web views (`--only peers`, `--only startup`; both in a full run).
    @MainActor
    func runComparisonParts(into table: inout ResultTable) async throws {
        if settings.runs("peers") { try await runPeers(into: &table) }
        if settings.runs("startup") { try await runStartup(into: &table) }
    }

    /// `--profile-e2e`: `count` round trips of a `bytes` payload, one at a time, through one side
    /// only, so that `perf record` sees that side's work alone; prints the time per call.
    /// - Returns: the exit status (1 when the side failed).
    @MainActor
    func runEndToEndProfile(_ profile: (mode: String, bytes: Int, count: Int)) async -> Int32 {
        do {
            let payload =
                profile.bytes > 10 * 1024 ? BenchPayload.text(bytes: profile.bytes) : .make(bytes: profile.bytes)
            let seconds: Double
            if profile.mode.hasPrefix("router") {
                let engine = try await EngineBench.open()
                try await engine.setPayload(payload, key: "profile")
                seconds = try await engine.run(profile.mode, key: "profile", count: profile.count)
                await engine.close()
            } else {
                let peers = try await PeerEngine.open()
                try await peers.setPayload(payload, key: "profile")
                seconds = try await peers.run(profile.mode, key: "profile", count: profile.count)
                peers.close()
            }
            print(
                "bridgebench: \(profile.count) \(profile.mode) round trips of \(profile.bytes) B: \(ResultTable.duration(seconds)) per call"
            )
            return 0
        } catch {
            FileHandle.standardError.write(Data("bridgebench: \(error)\n".utf8))
            return 1
        }
    }

    /// `--profile-steps`: see ``StepsProfile``.
    @MainActor
    func runStepsProfile(count: Int, bytes: Int) async -> Int32 { await StepsProfile.run(count: count, bytes: bytes) }
}
#else
extension BenchRun {
    /// Without the WebKitGTK trait there is no engine: the peer and startup parts are skipped.
    /// (Not main-actor: without GTK the main thread only waits, see main.swift.)
    func runComparisonParts(into table: inout ResultTable) async throws {
        if settings.runs("peers") || settings.runs("startup") {
            print(
                "bench: peer and startup parts skipped: built without the WebKitGTK trait (swift build --traits WebKitGTK)"
            )
        }
    }

    /// `--profile-steps` needs an engine.
    func runStepsProfile(count: Int, bytes: Int) async -> Int32 {
        FileHandle.standardError.write(Data("bridgebench: --profile-steps needs the WebKitGTK trait\n".utf8))
        return 1
    }

    /// `--profile-e2e` needs an engine.
    func runEndToEndProfile(_ profile: (mode: String, bytes: Int, count: Int)) async -> Int32 {
        FileHandle.standardError.write(Data("bridgebench: --profile-e2e needs the WebKitGTK trait\n".utf8))
        return 1
    }
}
#endif
