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
    static func fastCall(
        _ scan: CallEnvelopeScan, in body: UnsafeBufferPointer<UInt8>, task: AnyBridgeTask?,
        source: MessageSource, policy: AccessPolicy
    ) -> InboundMessage? {
        try? prepareCall(id: scan.id, name: scan.task, task: task, source: source, policy: policy) { task in
            try decodeOptions(scan.options, in: body, for: task)
        }
    }

    /// Decodes the `options` member at `range` of `body` (absent: JSON `null`, as
    /// `superDecoder(forKey:)` reads it) into `task`'s `Options` type; a ``RawJSON`` task gets the
    /// bytes once ``JSONValidator`` accepted them (the scan has already checked their depth).
    /// - Throws: when they do not decode; only ``generalOptions(of:task:source:policy:)`` says
    ///   which error the page gets.
    static func decodeOptions(
        _ range: Range<Int>?, in body: UnsafeBufferPointer<UInt8>,
        for task: AnyBridgeTask
    ) throws -> any Sendable {
        guard let range, let base = body.baseAddress, !range.isEmpty else {
            return task.takesRawJSON ? RawJSON.null : try task.decodeOptionsText(Self.null)
        }
        if task.takesRawJSON {
            let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
            guard JSONValidator.isValid(bytes, maxDepth: .max) else { throw RawOptionsRejected() }
            return RawJSON(checked: Data(bytes))
        }
        // Checked first: `JSONDecoder` only looks inside the strings a type reads, so it would take
        // options whose other strings hold control characters or invalid UTF-8 (issue 20, item 10).
        let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        guard JSONValidator.isValid(bytes, maxDepth: .max) else { throw RawOptionsRejected() }
        // No copy: the decoder reads the body's own bytes while this call runs.
        let options = Data(
            bytesNoCopy: UnsafeMutableRawPointer(mutating: base + range.lowerBound),
            count: range.count, deallocator: .none)
        return try task.decodeOptionsText(options)
    }

    /// The options of call `body` for `task` as the general path decodes them: the whole body
    /// with `JSONDecoder`, as ``BridgeRouter`` decodes a body the fast path gives up on. A call
    /// whose work decodes its options (``CallInput``) falls back to this when
    /// ``decodeOptions(_:in:for:)`` fails, so that it gets what a call decoded on arrival gets:
    /// the same error (both check the text with ``JSONValidator`` first).
    /// - Throws: the ``BridgeError`` the general path reports: `invalid_options` with its path;
    ///   `invalid_message` for text that is not JSON.
    @inline(never)
    static func generalOptions(
        of body: UnsafeBufferPointer<UInt8>, task: AnyBridgeTask, source: MessageSource,
        policy: AccessPolicy
    ) throws -> any Sendable {
        guard let message = try? decodeWhole(body, tasks: [task.name: task], source: source, policy: policy) else {
            throw BridgeError.invalidMessage("The body is not valid JSON.")
        }
        switch message {
        case .call(let call):
            switch call.prepared {
            case .success(let prepared):
                if case .options(let options) = prepared.input { return options }
            case .failure(let error):
                throw error
            }
        case .invalid(_, let error):
            throw error
        case .cancel, .reply:
            break
        }
        // Not a call the general path could prepare: not expected for a scanned call envelope.
        throw BridgeError.invalidMessage("The body is not a call.")
    }

    /// Decodes a whole body the general way: the envelope with `JSONDecoder`, a call's options
    /// into the type of the task `tasks` has under its name (``InboundDecodingContext``).
    ///
    /// The body must first be one JSON text by ``JSONValidator`` (RFC 8259, valid UTF-8), the one
    /// definition of a body every path shares: `JSONDecoder` alone is lazier (it never looks
    /// inside a string nobody reads, such as a `callbackId` next to an `id`, so a control
    /// character or invalid UTF-8 there passed) and more forgiving (a trailing comma).
    /// - Throws: when the body is not JSON.
    static func decodeWhole(
        _ body: UnsafeBufferPointer<UInt8>, tasks: [String: AnyBridgeTask], source: MessageSource,
        policy: AccessPolicy
    ) throws -> InboundMessage {
        guard JSONValidator.isValid(body, maxDepth: .max) else { throw NotJSON() }
        let decoder = BridgeJSON.makeDecoder()
        if let key = InboundDecodingContext.key {
            decoder.userInfo[key] = InboundDecodingContext(tasks: tasks, source: source, policy: policy)
        }
        return try decoder.decode(InboundEnvelope.self, from: Data(body)).message
    }

    private static let null = Data("null".utf8)

    private struct RawOptionsRejected: Error {}

    /// A body that is not one JSON text (``decodeWhole(_:tasks:source:policy:)``).
    private struct NotJSON: Error {}
}
