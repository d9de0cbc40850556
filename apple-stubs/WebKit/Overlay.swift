// The Swift parts of WebKit that are not in the Objective-C headers: the overlay
// (Source/WebKit/UIProcess/API/Cocoa/WebKitSwiftOverlay.swift) and the `async` import of
// `-evaluateJavaScript:completionHandler:`, in the two generations apps meet:
//
// - `-D WEBKIT_OVERLAY_BEFORE_36002`: the overlay before WebKit PR #36002 ("Fix actor-isolation
//   warnings in Swift overlay", 2024-10): completion blocks of the `Result` forms are plain
//   `((Result<Any, Error>) -> Void)?`; and the `async` import of
//   `evaluateJavaScript(_:)` returns `Any` (before PR #37519 annotated the block result
//   `WK_NULLABLE_RESULT`; it traps on `undefined`). The Xcode 16.0 SDKs.
// - default: the overlay after PR #36002 (WebKit commit 06dcb620 of WebKitSwiftOverlay.swift):
//   `@preconcurrency public func … completionHandler: (@MainActor (Result<Any, Error>) -> Void)? = nil`,
//   and `evaluateJavaScript(_:) async throws -> Any?` (after PR #37519, 287682@main).

@available(iOS 14.0, macOS 11.0, *)
extension WKWebView {
    #if WEBKIT_OVERLAY_BEFORE_36002
        /// Overlay before PR #36002: `public func evaluateJavaScript(_ javaScript: String, in frame:
        /// WKFrameInfo? = nil, in contentWorld: WKContentWorld, completionHandler: ((Result<Any,
        /// Error>) -> Void)? = nil)`.
        public func evaluateJavaScript(_ javaScript: String, in frame: WKFrameInfo? = nil, in contentWorld: WKContentWorld,
                                       completionHandler: ((Result<Any, any Error>) -> Void)? = nil) {}
        /// Overlay before PR #36002: `public func callAsyncJavaScript(_ functionBody: String,
        /// arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil, in contentWorld:
        /// WKContentWorld, completionHandler: ((Result<Any, Error>) -> Void)? = nil)`.
        public func callAsyncJavaScript(_ functionBody: String, arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil,
                                        in contentWorld: WKContentWorld,
                                        completionHandler: ((Result<Any, any Error>) -> Void)? = nil) {}
    #else
        /// Overlay after PR #36002: `@preconcurrency public func evaluateJavaScript(_ javaScript:
        /// String, in frame: WKFrameInfo? = nil, in contentWorld: WKContentWorld,
        /// completionHandler: (@MainActor (Result<Any, Error>) -> Void)? = nil)`.
        @preconcurrency
        public func evaluateJavaScript(_ javaScript: String, in frame: WKFrameInfo? = nil, in contentWorld: WKContentWorld,
                                       completionHandler: (@MainActor (Result<Any, any Error>) -> Void)? = nil) {}
        /// Overlay after PR #36002: `@preconcurrency public func callAsyncJavaScript(_ functionBody:
        /// String, arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil, in contentWorld:
        /// WKContentWorld, completionHandler: (@MainActor (Result<Any, Error>) -> Void)? = nil)`.
        @preconcurrency
        public func callAsyncJavaScript(_ functionBody: String, arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil,
                                        in contentWorld: WKContentWorld,
                                        completionHandler: (@MainActor (Result<Any, any Error>) -> Void)? = nil) {}
    #endif
}

@available(iOS 15.0, macOS 12.0, *)
extension WKWebView {
    /// Overlay (both generations): `public func evaluateJavaScript(_ javaScript: String, in frame:
    /// WKFrameInfo? = nil, contentWorld: WKContentWorld) async throws -> Any?` (iOS 15, macOS 12).
    public func evaluateJavaScript(_ javaScript: String, in frame: WKFrameInfo? = nil, contentWorld: WKContentWorld) async throws -> Any? {
        nil
    }
}

extension WKWebView {
    #if WEBKIT_OVERLAY_BEFORE_36002
        /// `async` import of `-evaluateJavaScript:completionHandler:` before PR #37519:
        /// `open func evaluateJavaScript(_ javaScriptString: String) async throws -> Any`.
        public func evaluateJavaScript(_ javaScriptString: String) async throws -> Any { NSNull() }
    #else
        /// `async` import after PR #37519 (`WK_NULLABLE_RESULT`):
        /// `open func evaluateJavaScript(_ javaScriptString: String) async throws -> Any?`.
        public func evaluateJavaScript(_ javaScriptString: String) async throws -> Any? { nil }
    #endif
}
