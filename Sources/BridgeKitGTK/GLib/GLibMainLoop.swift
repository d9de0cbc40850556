#if WebKitGTK
import CWebKitGTK

/// Starts GTK on a fixed thread and ties the GLib main loop to Swift's main actor.
///
/// GTK and WebKitGTK must always be used from one and the same thread (see `GTKThread`), while
/// BridgeKitGTK's API is `@MainActor`. ``start()`` picks one of two ``Mode``s:
///
/// - ``Mode/integrated``: called on the process main thread before `dispatch_main()` (a synchronous
///   `main.swift`). GTK lives on the main thread, which must run the GLib loop (``run()`` or
///   ``runUntilComplete(_:)``). A GLib source watches libdispatch's main-queue eventfd and drains the
///   main queue when it becomes readable, so `Task { @MainActor in }` and `await MainActor.run {}`
///   run promptly inside the loop.
/// - ``Mode/dedicatedThread``: anywhere else, notably under Swift Testing and `async` main, where
///   the runtime has called `dispatch_main()` and the main actor runs on changing libdispatch
///   workers. GTK then lives on a dedicated thread that runs the GLib loop forever; the main actor
///   is driven by libdispatch as usual.
///
/// In both modes main-actor code reaches GTK through `GTKThread` hops, and WebKit callbacks are
/// delivered to the main actor as tasks, so the same code path runs everywhere. Nothing polls:
/// GLib sleeps in `poll()` until one of its sources (WebKit IPC, the X connection, timers, hop
/// idle sources, the dispatch eventfd) is ready.
///
/// Thread: main actor.
@MainActor
public final class GLibMainLoop {
    /// Where GTK lives (see ``GLibMainLoop``).
    public enum Mode: Sendable, Equatable {
        /// GTK on the process main thread, which runs the GLib loop and drains the main queue in it.
        case integrated
        /// GTK on a dedicated thread that runs the GLib loop forever.
        case dedicatedThread
    }

    /// The one loop of the process (there is one GLib default main context).
    public static let shared = GLibMainLoop()

    /// The mode chosen by ``start()`` (nil before).
    public private(set) var mode: Mode?
    /// True after a successful ``start()``.
    public var isStarted: Bool { mode != nil }
    /// Kernel thread id (gettid) of the GTK thread; 0 before ``start()``.
    public var gtkThreadID: Int { GTKThread.threadID.load(ordering: .acquiring) }

    private var runningLoops: [OpaquePointer] = []

    private init() {}

    /// Initialises GTK once (`gtk_init_check`), choosing the ``Mode``; idempotent.
    /// In ``Mode/integrated`` it also installs the GLib source that drains the main dispatch queue.
    /// - Throws: ``GLibMainLoopError/displayUnavailable`` when GTK cannot open a display.
    public func start() throws(GLibMainLoopError) {
        if mode != nil { return }
        if DispatchMainQueueSource.canInstall() {
            guard gtk_init_check(nil, nil) != 0 else { throw .displayUnavailable }
            GTKThread.adoptCurrentThread()
            if DispatchMainQueueSource.installIfPossible() {
                GTKThread.postsThroughMainQueue.store(true, ordering: .releasing)
            }
            mode = .integrated
        } else {
            guard GTKThread.startDedicatedThread() else { throw .displayUnavailable }
            mode = .dedicatedThread
        }
    }

    /// Runs `body` on the GTK thread and returns its result, waiting for it (directly when the
    /// caller is on it). For code that uses GTK, GLib or libsoup C APIs directly, e.g. a test's
    /// loopback `SoupServer` (its sockets must be served by the GTK thread's loop).
    /// - Throws: ``GLibMainLoopError/displayUnavailable`` from ``start()``.
    public func performOnGTKThread<T: Sendable>(_ body: @Sendable () -> T) throws(GLibMainLoopError) -> T {
        try start()
        return GTKThread.perform(body)
    }

    /// True while ``run()`` or ``runUntilComplete(_:)`` is running a loop.
    public var isRunning: Bool { !runningLoops.isEmpty }

    /// Runs a GLib main loop on the main thread until ``quit()`` is called (blocking; nested calls
    /// nest loops). Main-actor tasks run inside it. Use it from a synchronous `main.swift`.
    /// - Throws: ``GLibMainLoopError/displayUnavailable`` from ``start()``;
    ///   ``GLibMainLoopError/notOnProcessMainThread`` in ``Mode/dedicatedThread``.
    public func run() throws(GLibMainLoopError) {
        try start()
        guard mode == .integrated else { throw .notOnProcessMainThread }
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
    /// result. For a synchronous `main.swift`, e.g. a host program:
    /// `let code = try GLibMainLoop.shared.runUntilComplete { try await app.main() }`.
    /// - Parameter operation: the work to run on the main actor while the loop runs.
    /// - Returns: what `operation` returned.
    /// - Throws: what `operation` threw; ``GLibMainLoopError/notOnProcessMainThread`` in
    ///   ``Mode/dedicatedThread``; ``GLibMainLoopError/nestedInMainQueueDrain`` when called from a
    ///   main-actor job that the loop itself is running (the operation could never start).
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
            GLibMainLoop.shared.quit()
        }
        while outcome.result == nil {
            try run()
        }
        guard let result = outcome.result else { throw GLibMainLoopError.nestedInMainQueueDrain }
        return try result.get()
    }
}

/// Holds the result of the operation of ``GLibMainLoop/runUntilComplete(_:)``.
@MainActor
private final class OutcomeBox<T> {
    var result: Result<T, any Error>?
}
#endif
