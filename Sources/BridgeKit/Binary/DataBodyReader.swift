public import Foundation

/// A body held in memory, read in chunks: the page-side body of a test transport, or a small
/// response body. Thread-safe.
public final class DataBodyReader: BinaryBodyReader {
    private let state: Locked<(data: Data, offset: Int, cancelled: Bool)>

    /// Creates a reader over `data`.
    public init(_ data: Data) {
        state = Locked((data, 0, false))
    }

    /// The next chunk, `nil` at the end.
    /// - Throws: `CancellationError` after ``cancel()``.
    public func read(maxBytes: Int) async throws -> Data? {
        try state.withLock { (s) throws(CancellationError) -> Data? in
            if s.cancelled { throw CancellationError() }
            guard s.offset < s.data.count else { return nil }
            let end = min(s.data.count, s.offset + max(1, maxBytes))
            let chunk = s.data.subdata(in: (s.data.startIndex + s.offset)..<(s.data.startIndex + end))
            s.offset = end
            return chunk
        }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Makes every later `read` throw.
    public func cancel() {
        state.withLock { $0.cancelled = true }
    }
}
