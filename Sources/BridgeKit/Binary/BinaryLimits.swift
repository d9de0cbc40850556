/// Limits of the byte transport (``BinaryTransfers``), in bytes and seconds.
///
/// Kept apart from `BridgeLimits`, which bounds JSON messages: a binary value never crosses in a
/// message, only its placeholder does.
public struct BinaryLimits: Sendable, Hashable {
    /// The largest transfer, either way, in bytes; a page body over it is cut off and refused
    /// with `payload_too_large` (HTTP 413 to the page's request). Default 1 GiB.
    public var maxTransferBytes: Int
    /// The largest chunk handed to a task or read from a native stream, in bytes; also the size
    /// of the parts of a larger value, both ways (``partBytes``). Default 1 MiB.
    public var chunkBytes: Int
    /// The bytes native may hold for downloads not ended yet: a `Data` offer
    /// (``BinaryTransfers/send(_:type:context:)``) counts its size, a chunk stream
    /// (``BinaryTransfers/send(chunks:size:type:context:)``) one ``chunkBytes``, so that a page
    /// cannot make the app keep any number of sources open. Over it `send` throws
    /// `memory_budget_exceeded`. Default 256 MiB (256 streams at the default chunk size).
    public var maxHeldBytes: Int
    /// How many download offers may be open at once (offered and not ended: unfetched, or being
    /// read), whatever their size: an empty `Data` offer counts nothing against ``maxHeldBytes``,
    /// so without this a page calling a task that offers bytes, and never reading them, could make
    /// the app keep any number of offers until their lifetime ends. Over it
    /// ``BinaryTransfers/send(_:type:context:)`` throws `memory_budget_exceeded`. Default 4096,
    /// the number of offered tokens the page's shim remembers (more could never all be read).
    public var maxOffers: Int
    /// How many page requests of one origin may wait for their call to claim them; the requests
    /// of all origins but the main frame's may wait four times that many together. Only an
    /// origin that called in the current document waits; a request without an origin never
    /// does (docs/protocol.md, "The byte transport"). Default 32.
    public var maxWaitingRequests: Int
    /// How long a page request waits for its call's task to claim the token, in seconds. Default 10.
    public var requestWait: Double
    /// How long a task waits for the page's request after it claimed a token, in seconds. Default 30.
    public var claimWait: Double
    /// How long a download offer lives unfetched (and, read in parts, between two parts), in
    /// seconds. Default 60.
    public var offerLifetime: Double

    /// The smallest part size, in bytes (64 KiB): the size of a page's first part of a value, sent
    /// before the page learned ``partBytes``, so a part this large is always accepted.
    public static let minimumPartBytes = 64 << 10

    /// The size of the parts a page sends a value larger than it in, in bytes: ``chunkBytes``,
    /// at least ``minimumPartBytes``. Native tells the page in every upload answer
    /// (`{"code": "ok", "partBytes": n}`) and refuses a larger part with `payload_too_large`
    /// (HTTP 413, reason `part_too_large`), which ends the upload (docs/protocol.md, "Binary values").
    /// Also the largest part native answers of a download the page reads in parts.
    public var partBytes: Int { max(chunkBytes, Self.minimumPartBytes) }

    /// The most bytes read from a page's request at once, and so the largest chunk of an upload
    /// a task gets: a quarter of ``partBytes``. The engine holds a request's whole body in the
    /// app's process while it is read (WebKitGTK's `webkit_uri_scheme_request_get_http_body`
    /// streams from memory it already has), so a read of the whole part would hold it twice.
    var pageReadBytes: Int { partBytes / 4 }

    /// Creates limits; every argument has the default documented on its property.
    public init(
        maxTransferBytes: Int = 1 << 30, chunkBytes: Int = 1 << 20, maxHeldBytes: Int = 256 << 20,
        maxOffers: Int = 4096, maxWaitingRequests: Int = 32, requestWait: Double = 10, claimWait: Double = 30,
        offerLifetime: Double = 60
    ) {
        self.maxTransferBytes = maxTransferBytes
        self.chunkBytes = max(1, chunkBytes)
        self.maxHeldBytes = maxHeldBytes
        self.maxOffers = maxOffers
        self.maxWaitingRequests = maxWaitingRequests
        self.requestWait = requestWait
        self.claimWait = claimWait
        self.offerLifetime = offerLifetime
    }
}
