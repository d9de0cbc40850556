/// Installs a router's message handlers on a content controller, once, and removes exactly
/// what it installed.
///
/// - Attaching twice to the same controller, or attaching a second router to a controller that
///   already has BridgeKit's handler names, issues no second "add" (WebKit throws an
///   Objective-C exception for that, field case R24).
/// - ``detach()`` removes every name this attachment added, and nothing else (field case R23).
/// - The attachment holds the controller weakly and the router not at all: the proxy it
///   installs holds the router weakly.
@MainActor
public final class BridgeAttachment {
    /// The outcome of ``attach(to:)``.
    public enum Outcome: Sendable, Hashable {
        /// The handlers were installed.
        case attached
        /// This attachment is already installed on that controller; nothing was done.
        case alreadyAttached
        /// Another attachment already installed a handler under `name` on that controller;
        /// nothing was done.
        case nameInUse(String)
    }

    /// The handler names this attachment installs. Default: `["webbridge"]`, the channel
    /// `js/webbridge.js` posts to (history notices use the same channel).
    public let names: [String]
    private let proxy: MessageHandlerProxy
    private weak var registry: (any ScriptMessageHandlerRegistry)?
    private var installed: [String] = []

    /// Creates an attachment.
    /// - Parameters:
    ///   - router: the router whose proxy is installed; not retained.
    ///   - names: the handler names to install; duplicates are ignored.
    public init(router: BridgeRouter, names: [String] = ["webbridge"]) {
        var seen = Set<String>()
        self.names = names.filter { seen.insert($0).inserted }
        self.proxy = MessageHandlerProxy(router: router)
    }

    /// The proxy this attachment installs.
    public var messageHandlerProxy: MessageHandlerProxy { proxy }

    /// Installs the handlers on `registry`.
    @discardableResult
    public func attach(to registry: any ScriptMessageHandlerRegistry) -> Outcome {
        if let current = self.registry {
            if current === registry { return .alreadyAttached }
            detach()
        }
        if let taken = names.first(where: { HandlerNameLedger.isInUse($0, on: registry) }) {
            return .nameInUse(taken)
        }
        for name in names {
            registry.addScriptMessageHandler(proxy, name: name)
            HandlerNameLedger.mark(name, on: registry)
            installed.append(name)
        }
        self.registry = registry
        return .attached
    }

    /// Removes every handler this attachment installed. Idempotent.
    public func detach() {
        if let registry {
            for name in installed {
                registry.removeScriptMessageHandler(name: name)
                HandlerNameLedger.unmark(name, on: registry)
            }
        }
        installed.removeAll()
        registry = nil
    }

    /// Whether the handlers are currently installed.
    public var isAttached: Bool { registry != nil && !installed.isEmpty }

    deinit {
        // `isolated deinit` would need the Swift 6.2 runtime's back-deployed executor hop on
        // iOS 18 / macOS 15; instead the handlers are removed on the main actor afterwards.
        guard let registry, !installed.isEmpty else { return }
        let names = installed
        Task { @MainActor in
            for name in names {
                registry.removeScriptMessageHandler(name: name)
                HandlerNameLedger.unmark(name, on: registry)
            }
        }
    }
}

/// Which handler names BridgeKit installed on which controller, across all attachments.
/// Controllers are held weakly; entries of released controllers are pruned on each access.
@MainActor
enum HandlerNameLedger {
    private struct Entry {
        weak var registry: (any ScriptMessageHandlerRegistry)?
        var names: Set<String>
    }

    private static var entries: [ObjectIdentifier: Entry] = [:]

    static func isInUse(_ name: String, on registry: any ScriptMessageHandlerRegistry) -> Bool {
        prune()
        return entries[ObjectIdentifier(registry)]?.names.contains(name) ?? false
    }

    static func mark(_ name: String, on registry: any ScriptMessageHandlerRegistry) {
        prune()
        entries[ObjectIdentifier(registry), default: Entry(registry: registry, names: [])].names.insert(name)
    }

    static func unmark(_ name: String, on registry: any ScriptMessageHandlerRegistry) {
        let key = ObjectIdentifier(registry)
        entries[key]?.names.remove(name)
        if entries[key]?.names.isEmpty == true { entries[key] = nil }
    }

    private static func prune() {
        entries = entries.filter { $0.value.registry != nil }
    }
}
