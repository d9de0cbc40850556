/*
 * CWebKitGTK: the C surface BridgeKitGTK uses from WebKitGTK (webkit2gtk-4.1, GTK 3), GLib, libsoup 3
 * and libdispatch. Only compiled when the `WebKitGTK` package trait is on (Linux).
 *
 * Besides the system headers it declares two libdispatch entry points that have no public header and
 * a few tiny helpers for things Swift cannot express (variadic g_object_new, gettid).
 */
#ifndef BRIDGEKIT_CWEBKITGTK_H
#define BRIDGEKIT_CWEBKITGTK_H

#include <webkit2/webkit2.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h> /* the byte transport's streamed responses (issue 26) */
#include <sys/socket.h>
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * libdispatch hooks for run loops (exported by libdispatch.so, used the same way by CoreFoundation's
 * CFRunLoop on Linux). `_dispatch_get_main_queue_handle_4CF` returns the main queue's wake-up eventfd,
 * which becomes readable whenever work is enqueued on the main queue, or -1 once `dispatch_main()` has
 * been called (the main queue is then drained by a worker thread). `_dispatch_main_queue_callback_4CF`
 * drains the main queue on the calling (main) thread; it must not be called after `dispatch_main()`.
 */
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

/** The main dispatch queue's wake-up eventfd, or -1 when the main queue is not run-loop driven. */
static inline int bk_dispatch_main_queue_fd(void) {
    return _dispatch_get_main_queue_handle_4CF();
}

/** Runs the work pending on the main dispatch queue (main thread only, never after dispatch_main()). */
static inline void bk_dispatch_main_queue_drain(void) {
    _dispatch_main_queue_callback_4CF(NULL);
}

/** Clears a non-blocking eventfd by reading its 8-byte counter; EAGAIN (already clear) is ignored. */
static inline void bk_eventfd_clear(int fd) {
    uint64_t value;
    ssize_t result;
    do {
        result = read(fd, &value, sizeof value);
    } while (result < 0 && errno == EINTR);
}

/** The kernel thread id of the calling thread. */
static inline long bk_current_thread_id(void) {
    return (long)syscall(SYS_gettid);
}

/** TRUE when the calling thread is the process's initial (main) thread. */
static inline gboolean bk_is_process_main_thread(void) {
    return (long)syscall(SYS_gettid) == (long)getpid();
}

/**
 * Creates a web view that uses the given web context and user content manager (both construct-only
 * properties, so they need the variadic g_object_new). Returns a floating reference.
 */
static inline WebKitWebView *bk_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW,
                                        "web-context", context,
                                        "user-content-manager", manager,
                                        NULL));
}

#endif /* BRIDGEKIT_CWEBKITGTK_H */
