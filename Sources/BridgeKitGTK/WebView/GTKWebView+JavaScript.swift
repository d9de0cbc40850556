#if WebKitGTK
import CWebKitGTK

extension GTKWebView {
    /// Runs `script` in the main frame and waits until it has run (`webkit_web_view_evaluate_javascript`).
    /// The result is discarded: the script gets `\n;void 0` appended, so a Promise or function
    /// result is not an error.
    /// - Parameters:
    ///   - script: JavaScript source (every character is passed, NUL included).
    ///   - world: a script world name, or nil for the page's own world.
    /// - Throws: ``GTKWebViewError/javaScriptFailed(_:)`` when it throws or does not compile;
    ///   ``GTKWebViewError/closed``; ``GTKWebViewError/cancelled``;
    ///   ``GTKWebViewError/invalidArgument(_:)`` for an empty world name or a NUL in it.
    public func evaluateJavaScript(_ script: String, inWorld world: String? = nil) async throws(GTKWebViewError) {
        _ = try await evaluate(script + "\n;void 0", world: world)
    }

    /// Runs `script` in the main frame and returns its completion value as JSON text.
    /// - Parameters:
    ///   - script: JavaScript source; its last expression is the result.
    ///   - world: a script world name, or nil for the page's own world.
    /// - Returns: the JSON text (`jsc_value_to_json`; object property order is not kept), or nil when
    ///   the value is `undefined`.
    /// - Throws: ``GTKWebViewError/javaScriptFailed(_:)`` when it throws, does not compile or the
    ///   result is a Promise, function or symbol ("Unsupported result type");
    ///   ``GTKWebViewError/resultNotJSON`` for a value without JSON form (a cyclic object);
    ///   ``GTKWebViewError/closed``; ``GTKWebViewError/cancelled``.
    public func evaluateJavaScriptReturningJSON(
        _ script: String, inWorld world: String? = nil
    ) async throws(GTKWebViewError) -> String? {
        try await evaluate(script, world: world)
    }

    private func evaluate(_ script: String, world: String?) async throws(GTKWebViewError) -> String? {
        try checkOpen()
        if let world, world.isEmpty || !isCStringSafe(world) {
            throw .invalidArgument("world name is empty or contains NUL")
        }
        let operation = GLibAsyncOperation<String?> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let value = webkit_web_view_evaluate_javascript_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error {
                if let value { g_object_unref(gRaw(value)) }
                return .failure(.javaScriptFailed(gErrorMessageTakingOwnership(error)))
            }
            guard let value else { return .success(nil) }
            defer { g_object_unref(gRaw(value)) }
            if jsc_value_is_undefined(value) != 0 { return .success(nil) }
            guard let json = JSCValueText.json(of: value) else { return .failure(.resultNotJSON) }
            return .success(json)
        }
        running.add(operation)
        let source = script.isEmpty ? "void 0" : script  // same completion value, never an empty buffer
        withOpenCore { core in
            var bytes = source
            bytes.withUTF8 { buffer in
                guard let start = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self) else {
                    operation.fail(.invalidArgument("script has no bytes"))
                    return
                }
                webkit_web_view_evaluate_javascript(
                    core.webView, start, gssize(buffer.count), world, nil, operation.cancellable.pointer,
                    glibAsyncReady, operation.retainedUserData())
            }
        }
        return try await operation.value().get()
    }
}
#endif
