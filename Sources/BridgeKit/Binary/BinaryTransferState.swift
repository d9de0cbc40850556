import Foundation

extension BinaryTransfers {
    /// Everything the transfers change, behind one lock. Continuations are taken out under the
    /// lock and resumed after it is released.
    struct State {
        var uploads: [String: UploadSlot] = [:]
        var offers: [String: Offer] = [:]
        /// Page requests that arrived before their call's task claimed the token.
        var waiting: [String: [Int: ClaimWaiter]] = [:]
        var waitingCount = 0
        /// The token and budget of each waiting request, by its key in `waiting`
        /// (``BinaryTransfers/WaitingBudget``).
        var waiterBudgets: [Int: (token: String, budget: WaitingBudget)] = [:]
        var nextWaiter = 0
        var heldBytes = 0
        /// How the uploads that ended lately ended, so that a later request of one (the next part)
        /// is answered at once with that ending, not after a wait; the newest
        /// ``maxEndedUploads``, oldest first in `endedOrder`.
        var endedUploads: [String: EndedUpload] = [:]
        var endedOrder: [String] = []
        /// Whether a timer will end the offers that expire unfetched (``BinaryTransfers/scheduleExpiry()``).
        var expiryScheduled = false
        /// The page generation of the last full pass of ``BinaryTransfers/sweep(now:)``, and the
        /// earliest time an idle offer may expire since (`-infinity`: the next sweep passes over
        /// everything). Until the generation changes or that time comes, a sweep has nothing to
        /// end and returns at once, so its cost does not grow with the transfers open.
        var sweptGeneration: UInt64?
        var nextExpiry = -Double.infinity
        /// How many times a sweep passed over every transfer (for tests).
        var fullSweeps = 0

        /// Notes that an offer of `generation` waits for the page until `expires`: the next sweep
        /// that could end it passes over everything.
        mutating func noteIdle(generation: UInt64, expires: Double) {
            nextExpiry = generation == sweptGeneration ? min(nextExpiry, expires) : -.infinity
        }
        var closed = false
        /// The wait timers running (``BinaryTransfers/startWaitTimer(in:seconds:fire:)``).
        var waitTimers = 0

        /// Removes the requests waiting for `token`'s claim and returns them, for
        /// ``BinaryTransfers/release(_:)`` after the lock.
        mutating func takeWaiters(for token: String) -> [ClaimWaiter] {
            let waiters = waiting.removeValue(forKey: token).map { Array($0.values) } ?? []
            waitingCount -= waiters.count
            return waiters
        }

        /// How many ended uploads are remembered, so that their later requests are answered at once.
        static let maxEndedUploads = 1024

        /// Remembers how upload `token` ended; forgets the oldest ending past ``maxEndedUploads``.
        mutating func remember(_ token: String, _ ended: EndedUpload) {
            if endedUploads.updateValue(ended, forKey: token) == nil { endedOrder.append(token) }
            if endedOrder.count > Self.maxEndedUploads { endedUploads[endedOrder.removeFirst()] = nil }
        }
    }

    /// A page request waiting for its token's claim, and the timer that ends its wait.
    struct ClaimWaiter {
        let continuation: CheckedContinuation<Void, Never>
        let timer: Task<Void, Never>
    }

    /// How an upload ended, as later requests of its token are answered.
    struct EndedUpload {
        /// The origin of the call that claimed it: a request of any other origin gets 403.
        let origin: String
        /// The answer's HTTP status and `code`.
        let status: Int
        let code: String
        /// The error the task's stream ended with; `nil` when it finished.
        let error: BridgeError?
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
        /// `bytes` when the current request's body arrived: the current part's bytes are `bytes - partStart`.
        var partStart = 0
        /// Whether the page sends the body in parts (`?offset=`), decided by its first request;
        /// `nil` before it.
        var parted: Bool?
        /// Counts the task's waits for a body, so a wait's timeout never ends a later one.
        var bodyWait = 0
        /// The timer of the task's current wait for a body; cancelled when the body arrives or the upload ends.
        var bodyTimer: Task<Void, Never>?
    }

    /// A download issued for a call (``BinaryTransfers/send(_:type:context:)``).
    struct Offer {
        let origin: String
        let generation: UInt64
        let callID: String?
        let source: OfferSource
        let size: Int?
        let type: String?
        /// When it ends unless the page asks for it (or, read in parts, for its next part) before.
        var expires: Double
        /// The bytes it holds against ``BinaryLimits/maxHeldBytes``.
        let held: Int
        /// Whether the page's request took it (it then ends through its reader).
        var taken = false
        /// The reader of a download the page reads in parts (`?offset=`), kept between its parts;
        /// `nil` for a whole-body download or before the first request.
        var partReader: OfferBodyReader?
        /// The offset the page's next part must start at (the bytes of the parts served so far).
        var nextOffset = 0
        /// Whether a part is being read now; no other part is served meanwhile.
        var partOpen = false
        /// Whether the offer waits for a page request, so its lifetime runs: unfetched, or read in
        /// parts and between two parts.
        var isIdle: Bool { !taken || (partReader != nil && !partOpen) }
        /// Stops its reader's read waiting for the source (``OfferBodyReader/interrupt()``); set
        /// once taken, called when the offer ends.
        var interrupt: (@Sendable () -> Void)?
    }

    /// Where a download's bytes come from.
    enum OfferSource: @unchecked Sendable {
        case data(Data)
        case stream(AsyncThrowingStream<Data, any Error>)
    }
}
