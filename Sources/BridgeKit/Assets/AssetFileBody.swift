package import Dispatch
package import Foundation

/// An asset file opened by ``AssetFile/open(_:root:)``, read as a body (``BinaryBodyReader``):
/// chunks read on `queue` (blocking reads, off the engine's thread), exactly the size announced
/// when it was opened. A file that grew since is cut there; one that shrank fails the body with
/// `EIO`, so the page sees a failed load instead of a short body that looks complete. The
/// descriptor is closed once, on `queue`, when the body ends, fails or is cancelled. Thread-safe.
package final class AssetFileBody: BinaryBodyReader {
    /// The file's size when it was opened: the body's length.
    package let size: Int64
    private let queue: DispatchQueue
    /// The open file (nil once closed) and the bytes left to send; changed on `queue` only.
    private let state: Locked<(file: AssetFile.Opened?, remaining: Int64)>

    /// Creates a body that takes `file` (and closes it).
    /// - Parameters:
    ///   - file: the open file.
    ///   - queue: a serial queue for the blocking reads and the close.
    package init(_ file: AssetFile.Opened, queue: DispatchQueue) {
        size = file.size
        self.queue = queue
        state = Locked((file, file.size))
    }

    deinit {
        if let file = state.withLock({ $0.file }) { AssetFile.close(file) }
    }

    /// The next chunk of at most `maxBytes` bytes, or nil after the announced size.
    /// - Throws: `CancellationError` after ``cancel()``; the read's `POSIXError`; `EIO` when the
    ///   file ends before its announced size.
    package func read(maxBytes: Int) async throws -> Data? {
        let queue = queue
        let result: Result<Data?, any Error> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.readNow(maxBytes: maxBytes)) }
        }
        return try result.get()
    }

    /// Closes the file (on the queue, after a read in progress): later reads throw.
    package func cancel() {
        queue.async { self.closeNow() }
    }

    /// One read, on the queue.
    private func readNow(maxBytes: Int) -> Result<Data?, any Error> {
        let (file, remaining) = state.withLock { ($0.file, $0.remaining) }
        guard let file else { return .failure(CancellationError()) }
        guard remaining > 0 else {
            closeNow()
            return .success(nil)
        }
        switch AssetFile.read(file, maxBytes: Int(min(Int64(max(1, maxBytes)), remaining))) {
        case .success(let data) where !data.isEmpty:
            state.withLock { $0.remaining -= Int64(data.count) }
            return .success(data)
        case .success:
            closeNow()
            return .failure(POSIXError(.EIO))
        case .failure(let error):
            closeNow()
            return .failure(error)
        }
    }

    private func closeNow() {
        guard
            let file = state.withLock({ state in
                defer { state.file = nil }
                return state.file
            })
        else { return }
        AssetFile.close(file)
    }
}
