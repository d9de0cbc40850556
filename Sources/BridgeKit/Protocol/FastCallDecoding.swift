import Foundation

extension InboundEnvelope {
    /// Prepares the call a ``CallEnvelopeScan`` found, decoding only the `options` bytes with
    /// `JSONDecoder` (into the task's `Options` type, as the general path does).
    ///
    /// - Parameters:
    ///   - scan: the scanned envelope.
    ///   - body: the body bytes the scan ran over; only read during the call.
    ///   - task: the task registered under the scanned name, if any.
    ///   - source: the sending frame.
    ///   - policy: the router's policy, for a task without its own.
    /// - Returns: the prepared call, or `nil` when the options do not decode: the caller then
    ///   decodes the whole body the general way, which reports the error exactly as before
    ///   (`invalid_options` with its path, or `invalid_message` for text that is not JSON).
    static func fastCall(_ scan: CallEnvelopeScan, in body: UnsafeBufferPointer<UInt8>, task: AnyBridgeTask?,
                         source: MessageSource, policy: AccessPolicy) -> InboundMessage? {
        try? prepareCall(id: scan.id, name: scan.task, task: task, source: source, policy: policy) { task in
            if task.takesRawJSON {
                return try rawOptions(scan, in: body)
            }
            guard let range = scan.options, let base = body.baseAddress, !range.isEmpty else {
                // An absent `options` member decodes as JSON null, as `superDecoder(forKey:)` does.
                return try task.decodeOptionsText(Self.null)
            }
            // No copy: the decoder reads the body's own bytes while this call runs.
            let options = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base + range.lowerBound),
                               count: range.count, deallocator: .none)
            return try task.decodeOptionsText(options)
        }
    }

    private static let null = Data("null".utf8)

    /// The `options` bytes as ``RawJSON`` after ``JSONValidator`` accepted them (the scan has
    /// already checked their depth); absent options are `null`.
    /// - Throws: when they are not JSON, so that the general path reports the error.
    private static func rawOptions(_ scan: CallEnvelopeScan, in body: UnsafeBufferPointer<UInt8>) throws -> RawJSON {
        guard let range = scan.options, let base = body.baseAddress, !range.isEmpty else { return .null }
        let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        guard JSONValidator.isValid(bytes, maxDepth: .max) else { throw RawOptionsRejected() }
        return RawJSON(checked: Data(bytes))
    }

    private struct RawOptionsRejected: Error {}
}
