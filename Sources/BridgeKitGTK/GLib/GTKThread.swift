#if WebKitGTK
import CWebKitGTK
import Dispatch
import Foundation
import Synchronization

/// The one thread that owns GTK, WebKit and the GLib default main context, and the ways to run
/// code on it.
///
/// WebKitGTK is thread-affine: WebKit records the thread that first uses it as its "main thread"
/// and keeps run-loop state in that thread's thread-local storage. Under Swift Testing (and any
/// `async` main) the main actor does not have a fixed thread: libdispatch drains the main queue on
/// worker threads, and an idle worker exits after about 5 s; if that worker was WebKit's thread,
/// WebKit's thread-exit cleanup deadlocks and every later WebKit call hangs (reproduced). So GTK
/// lives on a fixed thread: the process main thread when it runs the GLib loop
/// (``GLibMainLoop/Mode/integrated``), otherwise a dedicated thread that runs `g_main_loop_run`
/// forever (``GLibMainLoop/Mode/dedicatedThread``).
///
/// Code reaches it with ``perform(_:)`` (run and wait) or ``post(_:)`` (run later); both call the
/// body directly when already on the GTK thread. Hops from other threads attach a GLib idle source
/// (at default priority) to the default main context, which wakes it; nothing polls. In
/// ``GLibMainLoop/Mode/integrated`` mode a ``post(_:)`` goes through the main dispatch queue
/// instead, which the GLib loop drains on the same thread (``DispatchMainQueueSource``): a reply
/// answered from a worker thread reached the page sooner that way (measured with bridgebench:
/// about 10% more round trips per second for a concurrent task).
/// The GTK thread itself never waits for another thread, so hops cannot deadlock.
enum GTKThread {
    /// Kernel thread id (gettid) of the GTK thread; 0 until ``GLibMainLoop/start()``.
    static let threadID = Atomic<Int>(0)

    /// True on the GTK thread.
    static var isCurrent: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && id == bk_current_thread_id()
    }

    /// Runs `body` on the GTK thread and waits for its result (directly when already there).
    /// Blocks the calling thread for the duration of the hop; never call it from the GTK thread
    /// through another thread that the GTK thread waits for (it waits for none).
    /// `body` is `@Sendable` so that a closure written in main-actor code is not main-actor
    /// isolated (Swift would check that isolation at run time, on the GTK thread, and trap).
    ///
    /// Ordering: it always hops with a GLib idle source, never through the main dispatch queue
    /// (a main-actor job blocked in ``GLibMainLoop/iterate(until:timeout:)`` would hold that queue
    /// while this thread waits). So in integrated mode, work this thread ``post(_:)``ed before
    /// may run after `body`; a caller that needs both in order must use one of the two.
    static func perform<T>(_ body: @Sendable () -> T) -> T {
        if isCurrent { return body() }
        return withoutActuallyEscaping(body) { escapable in
            let hop = Hop()
            var result: T?
            hop.work = { result = escapable() }
            let done = DispatchSemaphore(value: 0)
            hop.done = done
            schedule(hop)
            done.wait()
            guard let result else { preconditionFailure("GTK thread hop finished without a result") }
            return result
        }
    }

    /// Whether ``post(_:)`` hops through the main dispatch queue: set in integrated mode, where the
    /// GLib loop drains that queue on the GTK thread.
    static let postsThroughMainQueue = Atomic<Bool>(false)

    /// Runs `body` on the GTK thread later (at once when already there), without waiting.
    /// Usable from any thread, e.g. from a `deinit`. Work posted from one thread runs in the order
    /// it was posted.
    ///
    /// In integrated mode it runs as main-queue work, so, like any main-actor job, not while a
    /// main-actor job blocks in ``GLibMainLoop/iterate(until:timeout:)``.
    static func post(_ body: @escaping @Sendable () -> Void) {
        if isCurrent {
            body()
            return
        }
        if postsThroughMainQueue.load(ordering: .acquiring) {
            DispatchQueue.main.async(execute: body)
            return
        }
        let hop = Hop()
        hop.work = body
        schedule(hop)
    }

    /// Starts a dedicated GTK thread that initialises GTK and then runs the GLib default main
    /// context forever. Waits until GTK is initialised.
    /// - Returns: whether `gtk_init_check` succeeded (false: no display).
    static func startDedicatedThread() -> Bool {
        let ready = DispatchSemaphore(value: 0)
        let outcome = Mutex(false)
        let thread = Thread {
            threadID.store(bk_current_thread_id(), ordering: .releasing)
            let initialised = gtk_init_check(nil, nil) != 0
            outcome.withLock { $0 = initialised }
            ready.signal()
            guard initialised, let loop = g_main_loop_new(nil, 0) else { return }
            g_main_loop_run(loop)  // forever: the thread must never exit (see the type's documentation)
        }
        thread.name = "BridgeKitGTK"
        thread.start()
        ready.wait()
        return outcome.withLock { $0 }
    }

    /// Marks the calling thread as the GTK thread (integrated mode: the process main thread).
    static func adoptCurrentThread() {
        threadID.store(bk_current_thread_id(), ordering: .releasing)
    }

    private static func schedule(_ hop: Hop) {
        guard let source = g_idle_source_new() else { return }
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, runHop, Unmanaged.passRetained(hop).toOpaque(), releaseHop)
        g_source_attach(source, nil)
        g_source_unref(source)
    }
}

/// One piece of work for the GTK thread; passed to GLib as user data (retained once).
private final class Hop {
    var work: () -> Void = {}
    var done: DispatchSemaphore?
}

/// `GSourceFunc`: runs the hop once and removes the idle source.
private let runHop: GSourceFunc = { data in
    guard let data else { return 0 }
    let hop = Unmanaged<Hop>.fromOpaque(data).takeUnretainedValue()
    hop.work()
    // Drop the work (and what it captured) before waking the waiter: `perform` borrows a
    // non-escaping closure, which must be released when `perform` returns.
    hop.work = {}
    hop.done?.signal()
    return 0  // G_SOURCE_REMOVE
}

/// `GDestroyNotify` of the idle source: releases the hop.
private let releaseHop: GDestroyNotify = { data in
    if let data {
        Unmanaged<Hop>.fromOpaque(data).release()
    }
}
#endif
