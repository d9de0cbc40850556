import Foundation

/// The life of one page call with an id, from its admission to its one final reply.
///
/// A value type with no lock of its own: the router keeps one in each ``PendingCall`` and
/// changes it only with its state lock held (``BridgeRouter/state``), through
/// ``handle(_:work:)``, which returns what must be done; the router does it after the lock is
/// released (cancels a task, sends the final reply). Every rule about who answers a call lives
/// here:
///
/// - **A call settles once.** The first event that settles it (its work finishing, the progress
///   limit, a page cancel, its timeout, a navigation commit, the router closing or going away)
///   gets ``Action/settle(cancelWork:cancelTimer:)``; every later one gets ``Action/none``.
/// - **Its other tasks stop.** Settling cancels the timer unless the timer settles, and the work
///   unless the work settles. A settling event that comes before the work is attached (an
///   immediate task's work starts, and may settle, before the router attaches it) leaves
///   ``State/settledBeforeAttach(cancelsWork:)``: attaching then cancels the work when someone
///   other than the work settled the call.
/// - **No progress after settling**, and at most the limit: the event past it settles the call.
/// - **The route is decided once, at admission** (``route(replyHandler:source:hasChannel:refused:)``),
///   and kept, constant, in the call (``PendingCall/route``).
/// - **Download tokens ride the call's next message.** The tokens of the bytes the call's task
///   offers (``BinaryTransfers``' `send`) wait here (``offerBinary(_:)``, refused once the call
///   settled) until the call's next progress or its final reply takes them
///   (``takeBinaryTokens()``) and ``ReplyPipeline`` writes them in that message's envelope. A
///   reply that is dropped (navigation, close of a reply that has no way to the page) drops them
///   with it; their offers end as every unread offer does (expiry, document change).
///
/// `@unchecked Sendable` is not needed: the tasks it holds are `Sendable`.
struct CallStateMachine: Sendable {
    /// Where a call's final reply goes, decided at admission
    /// (``route(replyHandler:source:hasChannel:refused:)``).
    enum Route: Sendable {
        /// Through the message's reply handler.
        case replyHandler(ReplyHandler)
        /// As a script in the main frame, through the page channel, after the call's progress.
        case script
        /// Nowhere: a refused sender or a subframe without a reply handler (only a log record).
        case none
    }

    /// Where a call is in its life.
    enum State: Sendable {
        /// Admitted; its work is not attached yet.
        case admitted
        /// Its work is attached and may be running.
        case running(work: Task<Void, Never>)
        /// Settled before its work was attached; `cancelsWork`: whether attaching it must cancel
        /// it (someone other than the work settled the call).
        case settledBeforeAttach(cancelsWork: Bool)
        /// Settled, its work attached or never to be: nothing more happens.
        case settled
    }

    /// What happens to a call.
    enum Event: Sendable, CaseIterable {
        /// The router attached the call's work (``BridgeRouter``'s start of the work).
        case workAttached
        /// The work finished with a result or an error.
        case workFinished
        /// The task sends a progress value (``CallContext/progress(_:)-(EncodableSendable)``).
        case progress
        /// The page cancelled the call.
        case pageCancelled
        /// The call's timeout passed.
        case timedOut
        /// A new document committed in the web view (``BridgeRouter/pageDidCommitNavigation()``).
        case navigationCommitted
        /// ``BridgeRouter/close()``, or the router being released.
        case routerClosed
    }

    /// What the router does, outside the lock, after an event.
    enum Action: Sendable, Equatable {
        /// Nothing: the call settled before, or the event changes nothing visible.
        case none
        /// The event settled the call: send its final reply (by the call's route; on a navigation, answer a
        /// kept reply handler with nothing and log), cancel `cancelWork` and `cancelTimer` when
        /// they are not `nil`.
        case settle(cancelWork: Task<Void, Never>?, cancelTimer: Task<Void, Never>?)
        /// Cancel the work just attached: the call settled before, by someone other than the work.
        case cancelWork(Task<Void, Never>)
        /// Send the progress value (it is number ``progressCount``).
        case sendProgress
        /// Refuse the progress value: the call has settled.
        case refuseProgress
    }

    /// The most progress values the call may send (``BridgeLimits/maxProgressPerCall``).
    let progressLimit: Int
    /// Where the call is in its life.
    private(set) var state: State = .admitted
    /// The timer that times the call out, if it has a timeout; set at admission, before anyone
    /// else sees the call.
    var timer: Task<Void, Never>?
    /// The progress values sent so far.
    private(set) var progressCount = 0
    /// The tokens of the downloads the call offered that no message has carried yet, in the
    /// order offered.
    private(set) var binaryTokens: [String] = []

    /// Creates the machine of an admitted call.
    /// - Parameter progressLimit: the most progress values it may send.
    init(progressLimit: Int = .max) {
        self.progressLimit = progressLimit
    }

    /// Whether the call has settled (its final reply is sent or being sent).
    var isSettled: Bool {
        switch state {
        case .admitted, .running: false
        case .settledBeforeAttach, .settled: true
        }
    }

    /// Adds the token of a download the call's task offered, to go with the call's next message.
    /// - Returns: `false` when the call has settled (no message of it will go; the offer must not
    ///   be made).
    mutating func offerBinary(_ token: String) -> Bool {
        guard !isSettled else { return false }
        binaryTokens.append(token)
        return true
    }

    /// The download tokens no message has carried yet, which the message being written now
    /// carries; the list is empty afterwards.
    mutating func takeBinaryTokens() -> [String] {
        guard !binaryTokens.isEmpty else { return [] }
        defer { binaryTokens = [] }
        return binaryTokens
    }

    /// Puts back `tokens` that ``takeBinaryTokens()`` took for a message that was not sent (a
    /// progress value over the size limit), before any offered since.
    mutating func restoreBinaryTokens(_ tokens: [String]) {
        binaryTokens.insert(contentsOf: tokens, at: 0)
    }

    /// Applies `event` and says what the caller must do; call it with the router's state lock
    /// held, and do the action after releasing it.
    ///
    /// - Parameters:
    ///   - event: what happened.
    ///   - work: the work task, for ``Event/workAttached`` only.
    /// - Returns: the action; ``Action/settle(cancelWork:cancelTimer:)`` exactly once in the
    ///   call's life.
    mutating func handle(_ event: Event, work: Task<Void, Never>? = nil) -> Action {
        switch (state, event) {
        case (.admitted, .workAttached):
            // The usual start: the work runs, nobody has settled the call.
            guard let work else { return .none }
            state = .running(work: work)
            return .none
        case (.settledBeforeAttach(let cancelsWork), .workAttached):
            // Race: a cancel, timeout, navigation or close came before the work was attached (or
            // an immediate task's work settled its own call before it was): cancel it now unless it
            // was the work itself.
            state = .settled
            guard cancelsWork, let work else { return .none }
            return .cancelWork(work)
        case (.running, .workAttached), (.settled, .workAttached):
            // A work is attached once; a second attachment is a router bug, and changes nothing.
            return .none

        case (.admitted, .progress), (.running, .progress):
            guard progressCount < progressLimit else {
                // The value past the limit settles the call with `progress_limit_exceeded`; the
                // work that sent it is stopping, and is cancelled too.
                return settle(byWork: false)
            }
            progressCount += 1
            return .sendProgress
        case (.settledBeforeAttach, .progress), (.settled, .progress):
            return .refuseProgress

        case (.admitted, .workFinished), (.running, .workFinished):
            // The work settles its own call: it is not cancelled, its delivery must not be.
            return settle(byWork: true)
        case (.admitted, _), (.running, _):
            // A page cancel, timeout, navigation or close settles the call and stops its work.
            // The timer is not cancelled by its own timeout (it is the task delivering the reply).
            return settle(byWork: false, keepsTimer: event == .timedOut)

        case (.settledBeforeAttach, _), (.settled, _):
            // Races lost: a second final event (the work finishing after a timeout or cancel, a
            // timer firing after the work, a navigation after close) never answers again.
            return .none
        }
    }

    /// Settles the call: the state moves to settled (or settled before attach) and the action
    /// names the tasks to cancel.
    private mutating func settle(byWork: Bool, keepsTimer: Bool = false) -> Action {
        let timer = keepsTimer ? nil : self.timer
        self.timer = nil
        switch state {
        case .running(let work):
            state = .settled
            return .settle(cancelWork: byWork ? nil : work, cancelTimer: timer)
        case .admitted:
            state = .settledBeforeAttach(cancelsWork: !byWork)
            return .settle(cancelWork: nil, cancelTimer: timer)
        case .settledBeforeAttach, .settled:
            return .none
        }
    }

    /// The route of a call's final reply: the reply handler for refused senders, subframes, when
    /// no channel is connected at admission and when the handler carries final replies
    /// (``ReplyHandler/carriesFinalReplies``: one engine round trip instead of two); a script for
    /// the main frame otherwise; never a script for a refused sender or a subframe (it would
    /// settle the main frame's call of the same id, field case R27), which without a reply
    /// handler get no reply at all.
    static func route(replyHandler: ReplyHandler?, source: MessageSource, hasChannel: Bool, refused: Bool) -> Route {
        if let replyHandler, refused || !source.isMainFrame || !hasChannel || replyHandler.carriesFinalReplies {
            return .replyHandler(replyHandler)
        }
        return refused || !source.isMainFrame ? .none : .script
    }
}

extension CallStateMachine.Action {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none), (.sendProgress, .sendProgress), (.refuseProgress, .refuseProgress): true
        case (.settle(let work1, let timer1), .settle(let work2, let timer2)): work1 == work2 && timer1 == timer2
        case (.cancelWork(let work1), .cancelWork(let work2)): work1 == work2
        default: false
        }
    }
}

/// A page call with an id, in flight.
///
/// A class, so that the router's table, the call's work and the log hand one reference around
/// instead of copying its fields; the call's work captures only this reference.
///
/// One ownership rule: ``machine`` (the call's state, timer and work task) is read and changed
/// only with the router's state lock held (``BridgeRouter/state``); ``work`` only by the call's
/// own work, once, as it starts (``takeWork()``); everything else is constant. (Reading even a
/// constant part of ``machine`` without the lock would be an exclusivity violation, which is why
/// ``route`` is a property of its own.)
final class PendingCall: @unchecked Sendable {
    /// The call's id, as the page sent it.
    let id: String
    let taskName: String
    /// The page generation the call belongs to.
    let generation: UInt64
    let source: MessageSource
    /// Where the final reply goes, decided once at admission.
    let route: CallStateMachine.Route
    /// The structured reply path, when the final reply goes through it.
    var replyHandler: ReplyHandler? {
        if case .replyHandler(let replyHandler) = route { return replyHandler }
        return nil
    }
    /// The call's life; only with the router's state lock held.
    var machine: CallStateMachine
    /// The task and its input, until the call's work takes them (``takeWork()``); `nil` for a
    /// call that never runs (an error reply).
    private var work: PreparedCall?
    /// The bytes this call holds against the router's budget (``BridgeLimits/maxHeldBytes``),
    /// released when its work ends; 0 for a call that never runs (an error reply).
    let heldBytes: Int

    /// The router the call belongs to; weak, so that a task that never ends (and keeps its
    /// context, which refers to this call) does not keep the router and its page alive.
    private(set) weak var router: BridgeRouter?

    init(
        id: String, taskName: String, generation: UInt64, source: MessageSource, route: CallStateMachine.Route,
        progressLimit: Int = .max, router: BridgeRouter, work: PreparedCall? = nil, heldBytes: Int = 0
    ) {
        self.id = id
        self.heldBytes = heldBytes
        self.work = work
        self.router = router
        self.taskName = taskName
        self.generation = generation
        self.source = source
        self.route = route
        machine = CallStateMachine(progressLimit: progressLimit)
    }

    /// Sends a progress value of this call through its router (``CallContext/progress(_:)-(EncodableSendable)``).
    /// - Throws: `unavailable` when the router is gone; otherwise as ``CallContext/progress(_:)-(EncodableSendable)``.
    func sendProgress(_ value: any Encodable & Sendable) async throws {
        guard let router else { throw BridgeError.unavailable("The router was released.") }
        try await router.sendProgress(value, call: self)
    }

    /// The task and input of the call, on the first call; `nil` on every later one. Called by
    /// the call's work only, once, as it starts: from then on the work holds the only reference,
    /// so the body and the options live no longer than the work needs them.
    func takeWork() -> PreparedCall? {
        work.take()
    }
}

/// A native-to-page call the page has not answered yet (``BridgeRouter/callPage(_:options:as:timeout:)-(_,EncodableSendable,_,_)``).
/// Not "pending": in BridgeKit a pending call is a page's call admitted and not yet settled
/// (``PendingCall``, ``BridgeLimits/maxPendingCalls``).
struct UnansweredPageCall: Sendable {
    let handler: String
    let generation: UInt64
    let continuation: CheckedContinuation<JSONValue, any Error>
    var timer: Task<Void, Never>?
    /// Whether the call's script left the router for the engine (``RouterState/handOver(_:)``):
    /// only then does the page need a cancel when native gives up on the call.
    var submitted = false
}

/// Everything a router mutates, guarded by its one lock (``BridgeRouter/state``, a `Locked`):
/// the page (channel, generation, observer), the calls in flight, and the registered tasks.
///
/// The invariant behind "every call settles exactly once": a call is in ``calls`` from its
/// admission until the event that settles it (``CallStateMachine``), which removes it under the
/// same lock; a navigation or close settles and removes every call at once.
struct RouterState: Sendable {
    var channel: PageChannel?
    var generation: UInt64 = 0
    /// The document of the current generation, as its document notice named it
    /// (``BridgeRouter/pageDidAnnounceDocument(_:origin:)``); `nil` until a notice named one. Scripts of
    /// the generation are delivered to this document only (``BridgeRouter/send(_:)``).
    var document: String?
    /// The security origin of ``document``, as its notice told it (`nil` before a notice named
    /// the document, for an opaque origin, or when the host gave none): where an event's `Data`
    /// may go as a download (``BridgeRouter/emit(_:data:)-(_,EncodableSendable)``).
    var documentOrigin: SecurityOrigin?
    /// The scripts of the current generation waiting for its document to be named.
    var documentWait = DocumentWait<BridgeRouter.HeldScript>()
    /// The pending calls (admitted, not yet settled) by id.
    var calls: [String: PendingCall] = [:]
    /// How many of ``calls`` came from subframes: together at most half of the limit, so the
    /// main frame always has the other half (``admit(_:as:limit:)``; attack 25).
    private(set) var subframeCalls = 0
    /// The unanswered native-to-page calls by id.
    var pageCalls: [String: UnansweredPageCall] = [:]
    var nextPageCallNumber: UInt64 = 0
    /// The end of this router's native-to-page call ids (`n-<number>-<tag>`): six random
    /// hexadecimal digits, so that two routers of one page (one detached, another attached) never
    /// send the same id, and a late cancel of one never matches a call of the other.
    let pageCallTag = String(
        String(UInt32.random(in: 0..<0x100_0000) | 0x100_0000, radix: 16).dropFirst())
    /// The cancels of native-to-page calls on their way to the engine and the scripts that wait
    /// for them (``BridgeRouter/failPageCall(_:_:notifyPage:)``).
    var cancelOrder = CancelOrder<CheckedContinuation<Void, Never>>()
    var isClosed = false
    /// When the answers to senders no policy admits go (``BridgeRouter/pacedReplyHandler(_:for:)``).
    var refusalPacing = RefusalPacing<@Sendable () -> Void>(burst: 64, perSecond: 100)
    /// The progress values and events on their way to the page (``BridgeRouter/inOutboundWindow(_:)``).
    var outboundWindow = OutboundWindow<BridgeRouter.OutboundSender>(size: 16)
    var observer: (@Sendable (TrafficRecord) -> Void)?
    /// The registered tasks by name.
    var taskTable = TaskTable()
    /// The origins of the calls admitted in the current page generation, at most
    /// ``maxCallingOrigins``: a byte request of such an origin may wait for its claim
    /// (``BinaryTransfers``, "waiting"). Emptied when a document commits.
    var callingOrigins: Set<SecurityOrigin> = []
    /// The origin last added to ``callingOrigins``: a call of the same origin as the one before
    /// (the usual case) costs one comparison.
    var lastCallingOrigin: SecurityOrigin?
    /// The most origins ``callingOrigins`` keeps for one document.
    static let maxCallingOrigins = 64
    /// Who is told when a new page generation starts (``BridgeRouter/addGenerationObserver(_:)``), by id.
    var generationObservers: [Int: @Sendable () -> Void] = [:]
    /// The id the next generation observer gets.
    var nextGenerationObserverID = 0

    /// Why a call was not admitted.
    enum AdmissionRefusal {
        case duplicateID
        case tooManyPendingCalls
    }

    /// Inserts `entry` as call `id`, unless a pending call has that id, `limit` calls are
    /// pending, or `entry` comes from a subframe and subframes' calls already take half of `limit`
    /// (at least one). One hash of the id in the usual case.
    /// - Returns: `nil` when admitted, otherwise why not (the table then holds what it held).
    mutating func admit(_ entry: PendingCall, as id: String, limit: Int) -> AdmissionRefusal? {
        if let existing = calls.updateValue(entry, forKey: id) {
            calls[id] = existing
            return .duplicateID
        }
        let fromSubframe = !entry.source.isMainFrame
        if calls.count > limit || (fromSubframe && subframeCalls >= max(limit / 2, 1)) {
            calls[id] = nil
            return .tooManyPendingCalls
        }
        if fromSubframe { subframeCalls += 1 }
        if let origin = entry.source.origin, origin != lastCallingOrigin {
            lastCallingOrigin = origin
            if callingOrigins.count < Self.maxCallingOrigins { callingOrigins.insert(origin) }
        }
        return nil
    }

    /// The page as a script going out now finds it.
    var scriptTarget: BridgeRouter.ScriptTarget {
        BridgeRouter.ScriptTarget(channel: channel, generation: generation, document: document)
    }

    /// Whether `outgoing`, sent now, waits for its generation's document (``DocumentWait``).
    func mustHold(_ outgoing: BridgeRouter.OutgoingScript) -> Bool {
        guard outgoing.generation == generation, !isClosed else { return false }
        return documentWait.mustHold(canBind: (outgoing.channel ?? channel)?.evaluateForDocument != nil)
    }

    /// What ``BridgeRouter/send(_:)`` does with `outgoing` now.
    /// - Parameter checksCancels: whether it waits for the cancels of its generation in flight
    ///   (``CancelOrder``); `false` once it waited for those that were in flight when it was sent.
    mutating func route(_ outgoing: BridgeRouter.OutgoingScript, checksCancels: Bool) -> BridgeRouter.SendRoute {
        if checksCancels, let upTo = cancelBarrier(for: outgoing) { return .waitForCancels(upTo: upTo) }
        if mustHold(outgoing) { return .hold }
        return handOver(outgoing) ? .deliver(scriptTarget) : .drop
    }

    /// Lets `outgoing` leave the router for the engine, unless it is no longer wanted: a
    /// native-to-page call that settled (its timeout, a cancel, `close()`) while it waited, which
    /// then never reaches the page and needs no cancel, or progress of a call that settled, which
    /// would follow the call's final reply. A call that leaves is marked submitted. A script of an
    /// earlier generation leaves (its delivery reports `navigated`).
    /// - Returns: whether `outgoing` goes to the engine.
    mutating func handOver(_ outgoing: BridgeRouter.OutgoingScript) -> Bool {
        guard isWanted(outgoing) else { return false }
        if outgoing.generation == generation, outgoing.kind == .call, let id = outgoing.id,
            let index = pageCalls.index(forKey: id)
        {
            pageCalls.values[index].submitted = true
        }
        return true
    }

    /// Whether the call `owner` has not settled (``CancelOrder/ended(_:)``).
    func isLive(_ owner: ScriptOwner) -> Bool {
        switch owner {
        case .pageCall(let id): pageCalls[id] != nil
        case .progress(let id): calls[id].map { !$0.isSettled } ?? false
        }
    }

    /// Whether `outgoing` is still to go (``handOver(_:)``, without marking a call submitted): not
    /// a native-to-page call or a progress whose call settled. A script of an earlier generation is.
    func isWanted(_ outgoing: BridgeRouter.OutgoingScript) -> Bool {
        guard outgoing.generation == generation else { return true }
        switch outgoing.kind {
        case .call: return outgoing.id.map { pageCalls[$0] != nil } ?? false
        case .progress: return !(outgoing.call?.isSettled ?? false)
        default: return true
        }
    }

    /// The newest cancel in flight that the final reply of `call` waits for when a reply handler
    /// carries it (``CancelOrder``): the task may have given up on a `callPage` before it (a reply
    /// by script waits in ``BridgeRouter/send(_:)``).
    func replyHandlerBarrier(for call: PendingCall) -> UInt64? {
        guard case .replyHandler = call.route, call.generation == generation, !isClosed else { return nil }
        return cancelOrder.barrier(generation: generation)
    }

    /// The newest cancel in flight that `outgoing`, sent now, waits for (``CancelOrder``): one of
    /// its own generation, unless it is a cancel or the router closed.
    func cancelBarrier(for outgoing: BridgeRouter.OutgoingScript) -> UInt64? {
        guard outgoing.generation == generation, !isClosed, outgoing.kind != .cancel else { return nil }
        return cancelOrder.barrier(generation: generation)
    }

    /// Starts a new page generation: its documents' calling origins start empty.
    mutating func startGeneration() {
        generation &+= 1
        document = nil
        callingOrigins = []
        lastCallingOrigin = nil
    }

    /// Applies `event` to `call` and, when the event settles it, removes it from ``calls``
    /// (unless a later call already uses its id: then that one stays).
    mutating func handle(_ event: CallStateMachine.Event, of call: PendingCall) -> CallStateMachine.Action {
        let action = call.machine.handle(event)
        if case .settle = action, let index = calls.index(forKey: call.id), calls[index].value === call {
            calls.remove(at: index)
            if !call.source.isMainFrame { subframeCalls -= 1 }
        }
        return action
    }

    /// Settles every pending call with `event` (a navigation commit, close, release) and empties
    /// the table.
    /// - Returns: the calls with the actions to do for them.
    mutating func settleAllCalls(_ event: CallStateMachine.Event) -> [(PendingCall, CallStateMachine.Action)] {
        let settled = calls.values.map { call in (call, call.machine.handle(event)) }
        calls.removeAll()
        subframeCalls = 0
        return settled
    }

    /// Removes and returns every native-to-page call.
    mutating func takeAllPageCalls() -> [UnansweredPageCall] {
        let all = Array(pageCalls.values)
        pageCalls.removeAll()
        return all
    }
}

extension PendingCall {
    /// Whether the call has settled; only with the router's state lock held.
    var isSettled: Bool { machine.isSettled }
}

extension BridgeRouter {
    /// Settles `call` with `outcome` and sends its final reply, if it is still pending
    /// (``settle(_:_:by:)``, then ``send(_:)``).
    func finish(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) async {
        if let outgoing = settle(call, consume outcome, by: event) {
            await send(outgoing)
        }
    }

    /// Settles `call` with `outcome`, if it is still pending; the first of reply, error, cancel
    /// and timeout wins and every later one does nothing, and none of them touches a later call
    /// that reuses the id (``CallStateMachine``). The call's other tasks are cancelled; the
    /// settling task itself never is, so its reply is not interrupted. The final reply is written
    /// by the route decided at admission (``writeFinalReply(_:id:task:route:generation:channel:binary:afterCancels:call:)``),
    /// with the download tokens the call has not sent yet.
    ///
    /// Takes `outcome` over: passed with `consume`, the result is released as soon as its reply
    /// is written.
    /// - Parameter event: ``CallStateMachine/Event/workFinished``, ``CallStateMachine/Event/timedOut``
    ///   or ``CallStateMachine/Event/pageCancelled``.
    /// - Returns: the reply script still to send when the reply goes by script.
    func settle(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) -> OutgoingScript? {
        let (action, binary, finishedBarrier, progressWaiters) = state.withLock { s in
            let action = s.handle(event, of: call)
            guard case .settle = action else {
                return (action, [String](), UInt64?.none, [CheckedContinuation<Void, Never>]())
            }
            let barrier: UInt64? =
                if case .workFinished = event { s.replyHandlerBarrier(for: call) } else { nil }
            // Its progress waiting for cancels stops: it is dropped now.
            let progress = s.cancelOrder.ended(ScriptOwner.progress(call.id))
            return (action, call.machine.takeBinaryTokens(), barrier, progress)
        }
        for waiter in progressWaiters { waiter.resume() }
        guard case .settle(let work, let timer) = action else { return nil }
        timer?.cancel()
        work?.cancel()
        var cancelBarrier = finishedBarrier
        if work != nil, case .replyHandler = call.route {
            // Cancelling the work may have made it give up on a `callPage` (its cancel numbered
            // just now): the reply the page gets for this call follows that cancel too.
            cancelBarrier = state.withLock { $0.replyHandlerBarrier(for: call) }
        }
        return writeFinalReply(
            consume outcome, id: call.id, task: call.taskName, route: call.route, generation: call.generation,
            binary: binary, afterCancels: cancelBarrier, call: call)
    }

    /// Adds the token of a download offered for `call` to the call's next message
    /// (``CallStateMachine/offerBinary(_:)``).
    /// - Returns: `false` when the call is no longer pending (settled, or its id reused).
    func offerBinary(_ token: String, for call: PendingCall) -> Bool {
        state.withLock { s in s.calls[call.id] === call && call.machine.offerBinary(token) }
    }
}
