import Foundation

extension BinaryTransfers {
    /// Everything the transfers change, behind one lock. Continuations are taken out under the
    /// lock and resumed after it is released.
    struct State {
        var uploads: [String: UploadSlot] = [:]
        var offers: [String: Offer] = [:]
        /// Page requests that arrived before their call's task claimed the token.
        var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        var waitingCount = 0
        /// The token and budget of each waiting request, by its key in `waiting`
        /// (``BinaryTransfers/WaitingBudget``).
        var waiterBudgets: [Int: (token: String, budget: WaitingBudget)] = [:]
        var nextWaiter = 0
        var heldBytes = 0
        /// Whether a timer will end the offers that expire unfetched (``BinaryTransfers/scheduleExpiry()``).
        var expiryScheduled = false
        var closed = false
    }

    /// An upload a task claimed (``BinaryTransfers/upload(of:context:)``).
    struct UploadSlot {
        let origin: String
        let generation: UInt64
        let declaredSize: Int?
        let callID: String?
        /// The page's request body, once its request arrived.
        var body: (any BinaryBodyReader)?
        /// The task waiting for the page's request.
        var bodyWaiter: CheckedContinuation<(any BinaryBodyReader)?, Never>?
        /// The page's request, waiting for the outcome.
        var requestWaiter: CheckedContinuation<BinaryResponse, Never>?
        /// The bytes read so far (of every part).
        var bytes = 0
        /// Whether the page sends the body in parts (`?offset=`), decided by its first request;
        /// `nil` before it.
        var parted: Bool?
        /// Counts the task's waits for a body, so a wait's timeout never ends a later one.
        var bodyWait = 0
    }

    /// A download issued for a call (``BinaryTransfers/send(_:type:context:)``).
    struct Offer {
        let origin: String
        let generation: UInt64
        let callID: String?
        let source: OfferSource
        let size: Int?
        let type: String?
        let expires: Double
        /// The bytes it holds against ``BinaryLimits/maxHeldBytes``.
        let held: Int
        /// Whether the page's request took it (it then ends through its reader).
        var taken = false
    }

    /// Where a download's bytes come from.
    enum OfferSource: @unchecked Sendable {
        case data(Data)
        case stream(AsyncThrowingStream<Data, any Error>)
    }
}
