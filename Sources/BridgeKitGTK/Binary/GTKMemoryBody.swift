#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation
import Synchronization

/// Serves a download whose bytes native already holds (``BinaryTransfers/send(_:type:context:)``,
/// a `Data` offer) straight from memory, as a bare scheme handler would: the response's
/// `GInputStream` is a `GMemoryInputStream` over a `GBytes` that keeps the `Data` alive without
/// copying it (`g_bytes_new_with_free_func`), which WebKit reads on its own thread without a
/// thread, task or socket of ours in between. Chunk streams (`send(chunks:)`) keep
/// ``GTKResponsePump``.
///
/// The download ends exactly once, when WebKit lets go of the stream (a weak reference on it):
/// `finished` when WebKit read all of it (the stream's position is at its end: every byte was
/// handed to the engine), else `cancelled` (the page aborted, navigated or closed mid-download;
/// ``OfferBodyReader/endWhole(delivered:)``). The offer's held bytes count against
/// ``BinaryLimits/maxHeldBytes`` until then. A `close()` of the transfers mid-download ends the
/// download (cancelled) at once, as for a stream, but WebKit may still read the rest of the
/// bytes it holds: they are in memory already and the view is closing.
///
/// Thread: GTK thread.
enum GTKMemoryBody {
    /// Bodies up to this size are copied (`g_memdup2`) instead of wrapped: a small `Data` keeps its
    /// bytes inline in the value, whose address is not stable.
    static let copyBelowBytes = 4096

    /// How many downloads were served from memory since the process started (diagnostics, tests).
    static let served = Atomic<Int>(0)

    /// Finishes `request` with `response`'s body from memory when it is a whole `Data` offer.
    /// - Returns: false when it is not one (a chunk stream, or a body that must refuse: the
    ///   caller streams it with ``GTKResponsePump``, whose first read reports why).
    static func start(_ request: GPointer<WebKitURISchemeRequest>, response: BinaryResponse) -> Bool {
        guard let reader = response.body as? OfferBodyReader, let data = reader.takeWhole() else { return false }
        let holder = Holder(data: data, reader: reader)
        let context = Unmanaged.passUnretained(holder).toOpaque()
        let bytes: OpaquePointer?
        if data.count < copyBelowBytes {
            let copy = data.withUnsafeBytes { g_memdup2($0.baseAddress, gsize(data.count)) }
            bytes = g_bytes_new_with_free_func(copy, gsize(data.count), g_free, nil)
        } else {
            // The holder's `Data` is never mutated, so its heap storage does not move while the
            // `GBytes` holds the holder (its reference is given back by `releaseHolder`).
            let base = holder.data.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
            _ = Unmanaged.passRetained(holder)
            bytes = g_bytes_new_with_free_func(base, gsize(data.count), releaseHolder, context)
        }
        let stream = g_memory_input_stream_new_from_bytes(bytes)
        g_bytes_unref(bytes)
        guard let stream else {
            reader.endWhole(delivered: 0)
            GTKBinaryScheme.finish(
                request, status: 503, headers: response.headers.filter { $0.key.hasPrefix("Access-Control") },
                data: Data("{\"code\":\"unavailable\"}".utf8))
            return true
        }
        served.add(1, ordering: .relaxed)
        // The weak reference holds a reference on the holder of its own, given back when it fires.
        _ = Unmanaged.passRetained(holder)
        g_object_weak_ref(gCast(UnsafeMutableRawPointer(stream)), streamDropped, context)
        GTKBinaryScheme.respond(
            request, status: response.status, headers: response.headers, stream: stream,
            length: Int64(data.count))
        return true
    }

    /// The bytes a memory stream serves and the download they end.
    private final class Holder: @unchecked Sendable {
        let data: Data
        let reader: OfferBodyReader
        init(data: Data, reader: OfferBodyReader) {
            self.data = data
            self.reader = reader
        }
    }

    /// `GDestroyNotify` of the `GBytes`: the stream freed its bytes.
    private static let releaseHolder: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<Holder>.fromOpaque(pointer).release()
    }

    /// `GWeakNotify` of the stream: WebKit let go of it (it is being disposed; its position is
    /// still readable, the bytes are freed later, in its finalize). Ends the download.
    private static let streamDropped:
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GObject>?) ->
            Void = { pointer, object in
                guard let pointer else { return }
                let holder = Unmanaged<Holder>.fromOpaque(pointer).takeRetainedValue()
                var delivered = 0
                if let object {
                    let seekable: OpaquePointer? = OpaquePointer(UnsafeMutableRawPointer(object))
                    delivered = Int(g_seekable_tell(seekable))
                }
                holder.reader.endWhole(delivered: delivered)
            }
}
#endif
