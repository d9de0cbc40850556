/// How one transfer ended: reported once per transfer to ``BinaryTransfers/setTransferObserver(_:)``.
public struct BinaryTransferRecord: Sendable, Hashable {
    /// Which way the bytes went.
    public enum Direction: String, Sendable, Hashable {
        /// Page to native.
        case upload
        /// Native to page.
        case download
    }

    /// How it ended; every transfer ends exactly once.
    public enum Outcome: Sendable, Hashable {
        /// Every byte crossed.
        case finished
        /// It failed with this stable error code (`payload_too_large`, `timeout`, `navigated`, …).
        case failed(String)
        /// One side gave up: the page aborted, the task stopped reading or was cancelled, the web view closed.
        case cancelled
    }

    /// The transfer's token.
    public var token: String
    /// Which way.
    public var direction: Direction
    /// The bytes that crossed.
    public var bytes: Int
    /// How it ended.
    public var outcome: Outcome
    /// The call that made the transfer, if any.
    public var callID: String?
}
