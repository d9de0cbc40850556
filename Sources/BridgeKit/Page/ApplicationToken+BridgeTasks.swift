extension ApplicationToken {
    /// A user-agent token listing the app's tasks, so a server can render for them before any
    /// script runs (as Hotwire Native's `bridge-components` does): `bridge-tasks (Alert/1
    /// Cart.add/2.1 Echo)`, a product and a comment (RFC 9110 section 10.1.5), names sorted,
    /// `name/version` for a task that declares a version. A `User-Agent` value can carry nothing
    /// else: WebKitGTK drops an application name that is not products and comments
    /// (``UserAgent/isValidFieldValue(_:)``), which the earlier form `bridge-tasks: [...]` was.
    ///
    /// Opt-in: append it with `UserAgentPolicy.appending(_:)` or
    /// `UserAgent.appending(_:to:)`, or after your app's own token
    /// (`try ApplicationToken("ShopApp/2.1 " + ApplicationToken.bridgeTasks(list).text)`). A user
    /// agent is fixed when the web view is created, so tasks registered later are not in it; the
    /// page's `WebBridge.supports` is always current.
    ///
    /// A name with a character outside visible US-ASCII, a space, `(`, `)`, `\` or `/` is left
    /// out (a version with one: the name is listed without it), so the token is always valid.
    /// - Parameter list: the tasks, usually ``BridgeRouter/taskList``.
    public static func bridgeTasks(_ list: BridgeTaskList) -> ApplicationToken {
        func fits(_ text: String) -> Bool {
            !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    (0x21...0x7E).contains($0.value) && !"()\\/".unicodeScalars.contains($0)
                }
        }
        let entries = list.names.filter(fits).map { name -> String in
            guard let version = list.version(of: name), fits(version) else { return name }
            return name + "/" + version
        }
        return (try? ApplicationToken("bridge-tasks (" + entries.joined(separator: " ") + ")")) ?? .empty
    }
}
