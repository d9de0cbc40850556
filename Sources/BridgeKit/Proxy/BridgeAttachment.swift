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
    /// The ledger's token of each installed name.
    private var tokens: [String: UInt64] = [:]

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
    ///
    /// A name still installed by an attachment that was released without ``detach()`` (its
    /// removal may still be on its way to the main actor) is removed now and taken over, so
    /// re-attaching in the same main-actor turn works; the late removal then does nothing.
    @discardableResult
    public func attach(to registry: any ScriptMessageHandlerRegistry) -> Outcome {
        if let current = self.registry {
            if current === registry { return .alreadyAttached }
            detach()
        }
        if let taken = names.first(where: { HandlerNameLedger.isHeldByLiveAttachment($0, on: registry) }) {
            return .nameInUse(taken)
        }
        for name in names {
            if HandlerNameLedger.releaseOrphan(name, on: registry) {
                registry.removeScriptMessageHandler(name: name)
            }
            registry.addScriptMessageHandler(proxy, name: name)
            tokens[name] = HandlerNameLedger.mark(name, on: registry, owner: self)
            installed.append(name)
        }
        self.registry = registry
        return .attached
    }

    /// Removes every handler this attachment installed. Idempotent.
    public func detach() {
        if let registry {
            for name in installed where HandlerNameLedger.unmark(name, on: registry, token: tokens[name]) {
                registry.removeScriptMessageHandler(name: name)
            }
        }
        installed.removeAll()
        tokens.removeAll()
        registry = nil
    }

    /// Whether the handlers are currently installed.
    public var isAttached: Bool { registry != nil && !installed.isEmpty }

    deinit {
        // `isolated deinit` needs Swift 6.2 and its runtime; instead the handlers are removed on
        // the main actor: at once when released on the main thread (the usual case), otherwise
        // on its next turn. Either way a new attachment may take the names over before that
        // (see attach(to:)): the removal only removes what is still this attachment's.
        guard let registry, !installed.isEmpty else { return }
        let tokens = tokens
        let installations = installed.map { ($0, tokens[$0]) }
        MainActorHop.run {
            for (name, token) in installations where HandlerNameLedger.unmark(name, on: registry, token: token) {
                registry.removeScriptMessageHandler(name: name)
            }
        }
    }
}

/// Which handler names BridgeKit installed on which controller, by which attachment, across all
/// attachments. Controllers and attachments are held weakly; entries of released controllers are
/// pruned on each access. Each installation has a token, so a late removal by a released
/// attachment never removes a handler that a newer attachment installed under the same name.
@MainActor
enum HandlerNameLedger {
    private struct Installation {
        weak var owner: BridgeAttachment?
        let token: UInt64
    }

    private struct Entry {
        weak var registry: (any ScriptMessageHandlerRegistry)?
        var names: [String: Installation]
    }

    private static var entries: [ObjectIdentifier: Entry] = [:]
    private static var lastToken: UInt64 = 0

    /// Whether a live attachment installed `name` on `registry`.
    static func isHeldByLiveAttachment(_ name: String, on registry: any ScriptMessageHandlerRegistry) -> Bool {
        prune()
        return entries[ObjectIdentifier(registry)]?.names[name]?.owner != nil
    }

    /// Forgets `name` on `registry` when its attachment was released without removing it.
    /// - Returns: whether it did (the caller then removes the handler from the registry).
    static func releaseOrphan(_ name: String, on registry: any ScriptMessageHandlerRegistry) -> Bool {
        let key = ObjectIdentifier(registry)
        guard let installation = entries[key]?.names[name], installation.owner == nil else { return false }
        entries[key]?.names[name] = nil
        return true
    }

    /// Records that `owner` installed `name` on `registry`. - Returns: the installation's token.
    static func mark(_ name: String, on registry: any ScriptMessageHandlerRegistry, owner: BridgeAttachment) -> UInt64 {
        prune()
        lastToken += 1
        entries[ObjectIdentifier(registry), default: Entry(registry: registry, names: [:])].names[name] =
            Installation(owner: owner, token: lastToken)
        return lastToken
    }

    /// Forgets the installation `token` of `name` on `registry`.
    /// - Returns: whether it was still recorded (the caller then removes the handler).
    static func unmark(_ name: String, on registry: any ScriptMessageHandlerRegistry, token: UInt64?) -> Bool {
        let key = ObjectIdentifier(registry)
        guard let token, entries[key]?.names[name]?.token == token else { return false }
        entries[key]?.names[name] = nil
        if entries[key]?.names.isEmpty == true { entries[key] = nil }
        return true
    }

    private static func prune() {
        entries = entries.filter { $0.value.registry != nil }
    }
}
