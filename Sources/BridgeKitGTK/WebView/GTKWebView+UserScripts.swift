#if WebKitGTK
import CWebKitGTK

extension GTKWebView {
    /// Adds a script that WebKit runs in every matching document loaded from now on (not in the
    /// current one) (`webkit_user_script_new` / `webkit_user_script_new_for_world`).
    /// - Parameters:
    ///   - source: the JavaScript source (no NUL).
    ///   - world: a script world name (isolated from the page's scripts; shares the DOM), or nil for
    ///     the page world.
    ///   - frames: which frames get it.
    ///   - injectionTime: when it runs.
    /// - Throws: ``GTKWebViewError/closed``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL or an
    ///   empty world name.
    public func addUserScript(
        _ source: String, world: String? = nil, frames: GTKUserScriptFrames = .allFrames,
        injectionTime: GTKUserScriptInjectionTime = .documentStart
    ) throws(GTKWebViewError) {
        try checkOpen()
        guard isCStringSafe(source) else { throw .invalidArgument("user script contains NUL") }
        if let world, world.isEmpty || !isCStringSafe(world) {
            throw .invalidArgument("world name is empty or contains NUL")
        }
        let injectedFrames =
            frames == .allFrames ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME
        let time =
            injectionTime == .documentStart
            ? WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START : WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END
        let added = withOpenCore { core -> Bool in
            let script =
                if let world {
                    webkit_user_script_new_for_world(source, injectedFrames, time, world, nil, nil)
                } else {
                    webkit_user_script_new(source, injectedFrames, time, nil, nil)
                }
            guard let script else { return false }
            webkit_user_content_manager_add_script(core.contentManager, script)
            webkit_user_script_unref(script)
            return true
        }
        guard added == true else { throw .invalidArgument("WebKit rejected the user script") }
    }

    /// Removes every user script added to this view (`webkit_user_content_manager_remove_all_scripts`);
    /// documents loaded from now on get none. No effect after close.
    public func removeAllUserScripts() {
        withOpenCore { webkit_user_content_manager_remove_all_scripts($0.contentManager) }
    }
}
#endif
