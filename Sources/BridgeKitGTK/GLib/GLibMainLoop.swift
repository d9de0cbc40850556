#if WebKitGTK
import CWebKitGTK

/// Starts GTK and runs the GLib main loop together with Swift's main actor.
///
/// GTK and WebKitGTK must be used from one thread, the one that runs the GLib default main
/// context. BridgeKitGTK uses them from the main actor, and this type makes the two meet. It works
/// in one of two ``Mode``s, chosen by ``start()``:
///
/// - ``Mode/integrated``: the process main thread runs the GLib loop (``run()`` or
///   ``runUntilComplete(_:)`` from a synchronous `main.swift`). A GLib source watches libdispatch's
///   main-queue eventfd and drains the main queue when it becomes readable, so `Task { @MainActor in }`
///   and `await MainActor.run {}` run promptly inside the loop. Async WebKit calls suspend the caller.
/// - ``Mode/pumping``: the main actor is not on the process main thread because the runtime has
///   called `dispatch_main()` (an `async` main, and every Swift Testing run). libdispatch then drains
///   the main queue on a worker thread and nothing runs GLib by itself; GLib runs only while main-actor
///   code waits: async WebKit calls of this module and ``iterate(until:timeout:)`` block the current
///   main-actor job in `g_main_context_iteration(NULL, TRUE)` until their result is there. WebKit
///   signals (script messages, title, load events) are delivered only during such waits.
///
/// Neither mode polls: GLib sleeps in `poll()` until one of its sources (WebKit's IPC sockets, the X
/// connection, timers, the dispatch eventfd) is ready.
///
/// Thread: main actor. The first ``start()`` records the thread; ``threadChangeCount`` counts later
/// GLib iterations on another thread (possible in pumping mode, where libdispatch picks the worker
/// thread; WebKit keeps thread-affine state, so tests assert it stays 0).
@MainActor
public final class GLibMainLoop {
    /// How GLib and the main actor are tied together (see ``GLibMainLoop``).
    public enum Mode: Sendable, Equatable {
        /// The process main thread runs the GLib loop and drains the main dispatch queue in it.
        case integrated
        /// The main actor runs on a libdispatch worker; GLib runs only while main-actor code waits.
        case pumping
    }

    /// The one loop of the process (there is one GLib default main context).
    public static let shared = GLibMainLoop()

    /// The mode chosen by ``start()``; ``Mode/pumping`` before it.
    public private(set) var mode: Mode = .pumping
    /// True after a successful ``start()``.
    public private(set) var isStarted = false
    /// Kernel thread id (gettid) of the thread that called ``start()``; 0 before.
    public private(set) var gtkThreadID = 0
    /// How many times GLib was iterated from a thread other than ``gtkThreadID`` (should stay 0).
    public private(set) var threadChangeCount = 0

    private var runningLoops: [OpaquePointer] = []

    private init() {}

    /// Initialises GTK (`gtk_init_check`) once and, on the process main thread, installs the GLib
    /// source that drains the main dispatch queue. Idempotent; later calls only check the thread.
    /// - Throws: ``GLibMainLoopError/displayUnavailable`` when GTK cannot open a display.
    public func start() throws(GLibMainLoopError) {
        if isStarted {
            noteCurrentThread()
            return
        }
        guard gtk_init_check(nil, nil) != 0 else {
            throw .displayUnavailable
        }
        gtkThreadID = bk_current_thread_id()
        mode = DispatchMainQueueSource.installIfPossible() ? .integrated : .pumping
        isStarted = true
    }

    /// True while ``run()`` or ``runUntilComplete(_:)`` is running a loop.
    public var isRunning: Bool { !runningLoops.isEmpty }

    /// Runs a GLib main loop until ``quit()`` is called (blocking; nested calls nest loops).
    /// In ``Mode/integrated`` main-actor tasks run inside it. Use it from a synchronous `main.swift`.
    /// - Throws: ``GLibMainLoopError/displayUnavailable`` from ``start()``.
    public func run() throws(GLibMainLoopError) {
        try start()
        guard let loop = g_main_loop_new(nil, 0) else { return }
        runningLoops.append(loop)
        g_main_loop_run(loop)
        runningLoops.removeLast()
        g_main_loop_unref(loop)
    }

    /// Makes the innermost running ``run()`` return (no effect when none runs).
    public func quit() {
        if let loop = runningLoops.last {
            g_main_loop_quit(loop)
        }
    }

    /// Runs the GLib loop until `operation` (started as a main-actor task) finishes, then returns its
    /// result. Meant for a synchronous `main.swift` (``Mode/integrated``), e.g. a host program:
    /// `try GLibMainLoop.shared.runUntilComplete { try await app.main() }`.
    /// - Parameter operation: the work to run on the main actor while the loop runs.
    /// - Returns: what `operation` returned.
    /// - Throws: what `operation` threw; ``GLibMainLoopError/notOnProcessMainThread`` in
    ///   ``Mode/pumping``; ``GLibMainLoopError/nestedInMainQueueDrain`` when called from a main-actor
    ///   job that the loop itself is running (the operation could never start).
    public func runUntilComplete<T: Sendable>(
        _ operation: @escaping @MainActor () async throws -> T
    ) throws -> T {
        try start()
        guard mode == .integrated else { throw GLibMainLoopError.notOnProcessMainThread }
        guard DispatchMainQueueSource.activeDrains == 0 else { throw GLibMainLoopError.nestedInMainQueueDrain }
        let outcome = OutcomeBox<T>()
        Task { @MainActor in
            do {
                outcome.result = .success(try await operation())
            } catch {
                outcome.result = .failure(error)
            }
            outcome.isFinished = true
            GLibMainLoop.shared.quit()
        }
        while !outcome.isFinished {
            try run()
        }
        guard let result = outcome.result else { throw GLibMainLoopError.nestedInMainQueueDrain }
        return try result.get()
    }

    /// Records an iteration of GLib on the current thread (see ``threadChangeCount``).
    func noteCurrentThread() {
        if isStarted, bk_current_thread_id() != gtkThreadID {
            threadChangeCount += 1
        }
    }
}

/// Holds the result of the operation of ``GLibMainLoop/runUntilComplete(_:)``.
@MainActor
private final class OutcomeBox<T> {
    var result: Result<T, any Error>?
    var isFinished = false
}
#endif
