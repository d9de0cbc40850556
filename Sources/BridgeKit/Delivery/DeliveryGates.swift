/// The ``DeliveryGate`` of each web view with bodies being sent, shared by a view's URL scheme
/// handlers (Apple's `WebKitAssetSchemeHandler` and `WebKitBinarySchemeHandler`), so that their
/// bodies together stay within one budget. A gate lives while its view has a task being answered:
/// each ``open(for:budget:barrier:)`` is matched by one ``close(for:)``.
///
/// Thread: main actor.
@MainActor
package final class DeliveryGates {
    /// The gates of the process's web views.
    package static let shared = DeliveryGates()

    private var entries: [ObjectIdentifier: (gate: DeliveryGate, tasks: Int)] = [:]

    /// Creates an empty registry (the process uses ``shared``; tests make their own).
    package init() {}

    /// The gate of `view` for one more task, made with `budget` and `barrier()` when the view has
    /// none.
    /// - Parameters:
    ///   - view: the web view's identity.
    ///   - budget: the new gate's budget, in bytes.
    ///   - barrier: makes the new gate's barrier (see ``DeliveryGate/init(budget:stallInterval:barrier:)``).
    package func open(
        for view: ObjectIdentifier, budget: Int, barrier: () -> @MainActor () async -> Void
    ) -> DeliveryGate {
        if let entry = entries[view] {
            entries[view] = (entry.gate, entry.tasks + 1)
            return entry.gate
        }
        let gate = DeliveryGate(budget: budget, barrier: barrier())
        entries[view] = (gate, 1)
        return gate
    }

    /// One task of `view` ended; the gate is dropped with the last.
    package func close(for view: ObjectIdentifier) {
        guard let entry = entries[view] else { return }
        entries[view] = entry.tasks > 1 ? (entry.gate, entry.tasks - 1) : nil
    }

    /// How many views have a gate (for tests).
    package var count: Int { entries.count }
}
