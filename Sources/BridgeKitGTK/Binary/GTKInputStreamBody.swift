#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation
import Synchronization

/// A page request's body on WebKitGTK, read with blocking reads on a queue of its own, one chunk
/// per `read`, and stopped with a `GCancellable`.
///
/// The body (`webkit_uri_scheme_request_get_http_body`) is opened only at the first `read`, that
/// is only after `BinaryTransfers` matched the request to a claimed upload of the same origin:
/// WebKitGTK 2.50 crashes the app's process in that call when the page's body is a `Blob`
/// (reproduced with WebKit2 4.1 from Python), so a request that is refused never gets there.
/// The shim never sends a `Blob` body (it reads a Blob into an ArrayBuffer first).
final class GTKInputStreamBody: BinaryBodyReader, @unchecked Sendable {
    private let request: GPointer<WebKitURISchemeRequest>
    private let cancellable: GPointer<GCancellable>
    private let stream = Mutex<GPointer<GInputStream>?>(nil)
    private let queue = DispatchQueue(label: "bridgekit.binary.upload")

    /// Keeps a reference to `request` (GTK thread).
    init(request: GPointer<WebKitURISchemeRequest>) {
        self.request = request
        g_object_ref(request.raw)
        cancellable = GPointer(g_cancellable_new())
    }

    deinit {
        let request = request
        let cancellable = cancellable
        let stream = self.stream.withLock { $0 }
        queue.async {
            if let stream {
                g_input_stream_close(stream.pointer, nil, nil)
                g_object_unref(stream.raw)
            }
            g_object_unref(cancellable.raw)
            GTKThread.post { g_object_unref(request.raw) }
        }
    }

    /// The body stream, opened on the GTK thread the first time.
    private func opened() -> GPointer<GInputStream>? {
        if let stream = stream.withLock({ $0 }) { return stream }
        let request = request
        let made = GTKThread.perform { () -> GPointer<GInputStream>? in
            webkit_uri_scheme_request_get_http_body(request.pointer).map { GPointer($0) }
        }
        stream.withLock { $0 = made }
        return made
    }

    func read(maxBytes: Int) async throws -> Data? {
        let cancellable = cancellable
        let count = max(1, maxBytes)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
            queue.async { [self] in
                guard g_cancellable_is_cancelled(cancellable.pointer) == 0 else {
                    continuation.resume(throwing: BridgeError.cancelled())
                    return
                }
                guard let stream = opened() else {
                    continuation.resume(returning: nil)
                    return
                }
                var data = Data(count: count)
                var error: UnsafeMutablePointer<GError>?
                let read = data.withUnsafeMutableBytes { buffer in
                    g_input_stream_read(stream.pointer, buffer.baseAddress, gsize(count), cancellable.pointer, &error)
                }
                if read < 0 {
                    continuation.resume(throwing: BridgeError.cancelled(gErrorMessageTakingOwnership(error)))
                } else if read == 0 {
                    continuation.resume(returning: nil)
                } else {
                    data.count = Int(read)
                    continuation.resume(returning: data)
                }
            }
        }
    }

    func cancel() {
        g_cancellable_cancel(cancellable.pointer)
    }
}
#endif
