import Foundation

/// A line on standard error the first time a call is refused for a reason that is almost always
/// the app's own set-up, not a hostile page: a router whose policy allows no origin at all (a
/// `BridgeRouter()` with the default configuration), or a page without an origin (a `file://`
/// page). Without it, a new user's page waited for ever and the only sign was a traffic record
/// the app had not asked for (found by a new user's trial). Each hint is written once per
/// process; refusals of origins a non-empty policy does not list write nothing (those are the
/// pages the policy exists to refuse).
enum PolicyHint {
    /// The hints already written.
    private static let written = Locked(Set<String>())

    /// Notes that a call of `task` from `source` was refused for `reason` under `policy`.
    static func noteRefusal(reason: String, task: String, source: MessageSource, policy: AccessPolicy) {
        guard let hint = hint(reason: reason, task: task, source: source, policy: policy) else { return }
        let isNew = written.withLock { $0.insert(hint).inserted }
        guard isNew else { return }
        FileHandle.standardError.write(Data("BridgeKit: \(TerminalText.safe(hint))\n".utf8))
    }

    /// The hint for a refusal, or nil when it needs none.
    static func hint(reason: String, task: String, source: MessageSource, policy: AccessPolicy) -> String? {
        switch reason {
        case "origin_not_allowed":
            guard case .only(let patterns) = policy.origins, patterns.isEmpty, let origin = source.origin else {
                return nil
            }
            return "a call of \"\(task)\" from \(origin) was refused (forbidden, origin_not_allowed): the policy "
                + "allows no origin. List the page's origin: BridgeConfiguration(policy: .origins([\"\(origin)\"]))."
        case "no_origin":
            return "a call of \"\(task)\" from a page without an origin (file://, data:, a sandboxed frame) was "
                + "refused (forbidden, no_origin). Serve the page from an origin the policy lists (on Linux "
                + "GTKAssetURIScheme's app://bundle, on Apple a WKURLSchemeHandler), or load it with "
                + "loadHTML(_:baseURI:) under such an origin."
        default:
            return nil
        }
    }
}
