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
        /// The task sends a progress value (``CallContext/progress(_:)``).
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
