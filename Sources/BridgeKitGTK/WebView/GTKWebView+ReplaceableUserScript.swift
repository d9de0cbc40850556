#if WebKitGTK
import CWebKitGTK

extension GTKWebView {
    /// Adds a page-world user script at document start and keeps WebKit's script object, so a
    /// later call can swap it: `previous` (returned by an earlier call) is removed first
    /// (`webkit_user_content_manager_remove_script`) and released. The new script runs after every
    /// script added before it. For scripts whose text changes while the view lives (the task
    /// list, ``WebKitGTKBridgeHost``).
    /// - Returns: the script, for the next replacement or ``removeUserScript(_:)``.
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL or a
    ///   script WebKit rejects.
    func replaceUserScript(_ previous: GOpaque?, with source: String, frames: GTKUserScriptFrames)
        throws(GTKWebViewError) -> GOpaque
    {
        try checkOpen()
        guard isCStringSafe(source) else { throw .invalidArgument("user script contains NUL") }
        let injectedFrames =
            frames == .allFrames ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME
        let added = withOpenCore { core -> GOpaque? in
            if let previous {
                webkit_user_content_manager_remove_script(core.contentManager, previous.pointer)
                webkit_user_script_unref(previous.pointer)
            }
            guard
                let script = webkit_user_script_new(
                    source, injectedFrames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
            else {
                return nil
            }
            webkit_user_content_manager_add_script(core.contentManager, script)
            return GOpaque(script)
        }
        guard let script = added ?? nil else { throw .invalidArgument("WebKit rejected the user script") }
        return script
    }

    /// Removes and releases a script from ``replaceUserScript(_:with:frames:)``; after close only
    /// releases it.
    func removeUserScript(_ script: GOpaque) {
        let removed = withOpenCore { core -> Bool in
            webkit_user_content_manager_remove_script(core.contentManager, script.pointer)
            webkit_user_script_unref(script.pointer)
            return true
        }
        if removed != true { GTKThread.perform { webkit_user_script_unref(script.pointer) } }
    }
}
#endif
