#if !WebKitGTK
extension BenchRun {
    /// Without the WebKitGTK trait there is no engine: the end-to-end and large-payload parts are skipped.
    func runEngineParts(into table: inout ResultTable) async throws {
        guard settings.runs("e2e") || settings.runs("large") else { return }
        print(
            "bench: end-to-end and large-payload parts skipped: built without the WebKitGTK trait (swift build --traits WebKitGTK)"
        )
    }
}
#endif
