#if WebKitGTK
import Testing

extension GTKWrapperTests {
    /// End-to-end tests in real WebKit: a ``WebKitGTKBridgeHost`` with a router, the shim and the
    /// relay, pages served from 127.0.0.1. Nested in the wrapper suite, so they run one at a time
    /// with every other WebKitGTK test (one GTK, one GLib context).
    @MainActor
    @Suite("End to end", .serialized)
    struct EndToEnd {}
}
#endif
