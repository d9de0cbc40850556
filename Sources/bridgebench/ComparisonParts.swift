extension BenchRun {
    /// The parts that compare BridgeKit with the engine's limit, the peer designs and itself at
    /// startup and across web views (`--only peers`, `--only startup`; both in a full run).
    @MainActor
    func runComparisonParts(into table: inout ResultTable) async throws {
        #if WebKitGTK
        if settings.runs("peers") { try await runPeers(into: &table) }
        if settings.runs("startup") { try await runStartup(into: &table) }
        #else
        if settings.runs("peers") || settings.runs("startup") {
            print("bench: peer and startup parts skipped: built without the WebKitGTK trait (swift build --traits WebKitGTK)")
        }
        #endif
    }
}
