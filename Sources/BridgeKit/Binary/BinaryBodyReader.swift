public import Foundation

/// A body read one chunk at a time: a page request's body as the byte transport hands it to
/// ``BinaryTransfers``, or a download's body as ``BinaryTransfers`` hands it to the transport.
///
/// One reader at a time: `read` is never called again before the previous call returned.
/// `cancel` may be called from any thread, at any time, more than once.
public protocol BinaryBodyReader: AnyObject, Sendable {
    /// The next chunk of at most `maxBytes` bytes (never empty), or `nil` at the end of the body.
    /// - Throws: when the body cannot be read (the peer went away, the read was cancelled).
    func read(maxBytes: Int) async throws -> Data?
    /// Stops the body: a pending or later `read` throws or returns `nil`, and the other side is told.
    func cancel()
}
