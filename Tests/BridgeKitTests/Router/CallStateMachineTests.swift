import Testing

@testable import BridgeKit

/// Kind of fault: a call answered twice or never, a task left running after its call settled, a
/// timer that cancels its own delivery, progress after the final reply. Every (state, event) pair
/// of ``CallStateMachine`` is listed here with the state it leads to and the action it returns.
@Suite("Call state machine: every state and event, by transition table")
struct CallStateMachineTests {
    typealias Event = CallStateMachine.Event

    /// The states a call can be in, as the table names them.
    enum Start: String, CaseIterable {
        case admitted
        case running
        /// Settled by someone other than the work before the work was attached.
        case settledBeforeAttachByOther
        /// Settled by its own work before it was attached (an immediate task).
        case settledBeforeAttachByWork
        case settled
    }

    /// A machine in `start`, with a timer; `work` is the work task it holds when running.
    static func machine(_ start: Start, work: Task<Void, Never>, timer: Task<Void, Never>) -> CallStateMachine {
        var machine = CallStateMachine(progressLimit: 2)
        machine.timer = timer
        switch start {
        case .admitted: break
        case .running: _ = machine.handle(.workAttached, work: work)
        case .settledBeforeAttachByOther: _ = machine.handle(.pageCancelled)
        case .settledBeforeAttachByWork: _ = machine.handle(.workFinished)
        case .settled:
            _ = machine.handle(.workAttached, work: work)
            _ = machine.handle(.workFinished)
        }
        return machine
    }

    /// The name of a state, as the table writes it.
    static func name(_ state: CallStateMachine.State) -> String {
        switch state {
        case .admitted: "admitted"
        case .running: "running"
        case .settledBeforeAttach(cancelsWork: true): "settledBeforeAttachByOther"
        case .settledBeforeAttach(cancelsWork: false): "settledBeforeAttachByWork"
        case .settled: "settled"
        }
    }

    /// The name of an action, as the table writes it: which of the work (`w`, the running work;
    /// `a`, the work being attached) and the timer (`t`) it cancels.
    static func name(
        _ action: CallStateMachine.Action, work: Task<Void, Never>, attached: Task<Void, Never>,
        timer: Task<Void, Never>
    ) -> String {
        func task(_ task: Task<Void, Never>?) -> String {
            guard let task else { return "-" }
            return task == work ? "w" : task == attached ? "a" : task == timer ? "t" : "?"
        }
        switch action {
        case .none: return "none"
        case .settle(let cancelWork, let cancelTimer): return "settle(\(task(cancelWork)),\(task(cancelTimer)))"
        case .cancelWork(let cancelled): return "cancelWork(\(task(cancelled)))"
        case .sendProgress: return "sendProgress"
        case .refuseProgress: return "refuseProgress"
        }
    }

    /// (start, event) → (next state, action). The timer is not cancelled by its own timeout, nor
    /// the work by its own finishing; nothing settles twice.
    static let table: [Start: [Event: (String, String)]] = [
        .admitted: [
            .workAttached: ("running", "none"),
            .workFinished: ("settledBeforeAttachByWork", "settle(-,t)"),
            .progress: ("admitted", "sendProgress"),
            .pageCancelled: ("settledBeforeAttachByOther", "settle(-,t)"),
            .timedOut: ("settledBeforeAttachByOther", "settle(-,-)"),
            .navigationCommitted: ("settledBeforeAttachByOther", "settle(-,t)"),
            .routerClosed: ("settledBeforeAttachByOther", "settle(-,t)"),
        ],
        .running: [
            .workAttached: ("running", "none"),
            .workFinished: ("settled", "settle(-,t)"),
            .progress: ("running", "sendProgress"),
            .pageCancelled: ("settled", "settle(w,t)"),
            .timedOut: ("settled", "settle(w,-)"),
            .navigationCommitted: ("settled", "settle(w,t)"),
            .routerClosed: ("settled", "settle(w,t)"),
        ],
        .settledBeforeAttachByOther: [
            .workAttached: ("settled", "cancelWork(a)"),
            .workFinished: ("settledBeforeAttachByOther", "none"),
            .progress: ("settledBeforeAttachByOther", "refuseProgress"),
            .pageCancelled: ("settledBeforeAttachByOther", "none"),
            .timedOut: ("settledBeforeAttachByOther", "none"),
            .navigationCommitted: ("settledBeforeAttachByOther", "none"),
            .routerClosed: ("settledBeforeAttachByOther", "none"),
        ],
        .settledBeforeAttachByWork: [
            .workAttached: ("settled", "none"),
            .workFinished: ("settledBeforeAttachByWork", "none"),
            .progress: ("settledBeforeAttachByWork", "refuseProgress"),
            .pageCancelled: ("settledBeforeAttachByWork", "none"),
            .timedOut: ("settledBeforeAttachByWork", "none"),
            .navigationCommitted: ("settledBeforeAttachByWork", "none"),
            .routerClosed: ("settledBeforeAttachByWork", "none"),
        ],
        .settled: [
            .workAttached: ("settled", "none"),
            .workFinished: ("settled", "none"),
            .progress: ("settled", "refuseProgress"),
            .pageCancelled: ("settled", "none"),
            .timedOut: ("settled", "none"),
            .navigationCommitted: ("settled", "none"),
            .routerClosed: ("settled", "none"),
        ],
    ]

    @Test("the table covers every (state, event) pair")
    func tableIsComplete() {
        for start in Start.allCases {
            #expect(Set(Self.table[start]?.keys.map { $0 } ?? []) == Set(Event.allCases), "\(start)")
        }
    }

    @Test("every (state, event) pair leads where the table says", arguments: Start.allCases, Event.allCases)
    func transition(start: Start, event: Event) {
        let work = Task<Void, Never> {}
        let attached = Task<Void, Never> {}
        let timer = Task<Void, Never> {}
        var machine = Self.machine(start, work: work, timer: timer)
        let action = machine.handle(event, work: event == .workAttached ? attached : nil)
        let expected = Self.table[start]?[event]
        #expect(Self.name(machine.state) == expected?.0, "\(start) + \(event)")
        #expect(Self.name(action, work: work, attached: attached, timer: timer) == expected?.1, "\(start) + \(event)")
        if start == .running, event == .workAttached {
            // A second attachment keeps the first work.
            guard case .running(let kept) = machine.state else { return }
            #expect(kept == work)
        }
    }

    @Test("exactly one settle action whatever the order of the final events")
    func settlesOnce() {
        let finals: [Event] = [.workFinished, .pageCancelled, .timedOut, .navigationCommitted, .routerClosed]
        for first in finals {
            for second in finals {
                for attachedFirst in [true, false] {
                    let work = Task<Void, Never> {}
                    var machine = CallStateMachine()
                    var settles = 0
                    if attachedFirst { _ = machine.handle(.workAttached, work: work) }
                    for event in [first, second] {
                        if case .settle = machine.handle(event) { settles += 1 }
                    }
                    let attach = attachedFirst ? .none : machine.handle(.workAttached, work: work)
                    #expect(settles == 1, "\(first), \(second)")
                    #expect(machine.isSettled)
                    // The work is cancelled exactly when someone other than the work settled first.
                    if !attachedFirst {
                        #expect((attach == .cancelWork(work)) == (first != .workFinished), "\(first), \(second)")
                    }
                }
            }
        }
    }

    @Test("progress: up to the limit, the value past it settles the call, none after settling")
    func progressLimit() {
        let work = Task<Void, Never> {}
        var machine = CallStateMachine(progressLimit: 2)
        _ = machine.handle(.workAttached, work: work)
        #expect(machine.handle(.progress) == .sendProgress)
        #expect(machine.handle(.progress) == .sendProgress)
        #expect(machine.progressCount == 2)
        #expect(machine.handle(.progress) == .settle(cancelWork: work, cancelTimer: nil))
        #expect(machine.handle(.progress) == .refuseProgress)
        #expect(machine.handle(.workFinished) == .none)
    }

    @Test("the route is decided at admission: reply handler, script or none")
    func route() {
        let handler = ReplyHandler { _ in }
        let carrying = ReplyHandler(carriesFinalReplies: true) { _ in }
        let main = MessageSource.mainFrame(appOrigin)
        let sub = MessageSource.subframe(appOrigin)
        func name(_ route: CallStateMachine.Route) -> String {
            switch route {
            case .replyHandler(let path): path === carrying ? "carrying" : "handler"
            case .script: "script"
            case .none: "none"
            }
        }
        typealias Row = (ReplyHandler?, MessageSource, hasChannel: Bool, refused: Bool, expected: String)
        let rows: [Row] = [
            (handler, main, true, false, "script"),
            (carrying, main, true, false, "carrying"),
            (handler, main, false, false, "handler"),
            (nil, main, false, false, "script"),
            (nil, main, true, false, "script"),
            (handler, sub, true, false, "handler"),
            (nil, sub, true, false, "none"),
            (handler, main, true, true, "handler"),
            (nil, main, true, true, "none"),
        ]
        for row in rows {
            let route = CallStateMachine.route(
                replyHandler: row.0, source: row.1, hasChannel: row.hasChannel,
                refused: row.refused)
            #expect(name(route) == row.expected, "\(row)")
        }
    }
}
