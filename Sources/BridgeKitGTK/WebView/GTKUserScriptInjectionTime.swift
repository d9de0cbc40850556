#if WebKitGTK
import CWebKitGTK

/// When a user script runs (`WebKitUserScriptInjectionTime`).
public enum GTKUserScriptInjectionTime: Sendable, Equatable {
    /// Before any of the document's own scripts (`WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START`).
    case documentStart
    /// After the document is parsed, before subresources finish (`..._AT_DOCUMENT_END`).
    case documentEnd
}
#endif
