#if WebKitGTK
import CWebKitGTK

/// Which frames a user script is injected into (`WebKitUserContentInjectedFrames`).
public enum GTKUserScriptFrames: Sendable, Equatable {
    /// Every frame, iframes of any origin included (`WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES`).
    case allFrames
    /// Only the top-level frame (`WEBKIT_USER_CONTENT_INJECT_TOP_FRAME`).
    case mainFrameOnly
}
#endif
