import Foundation

/// The benchmark's output: one row per comparison, printed as a Markdown table.
struct ResultTable {
    /// What a ratio must satisfy.
    enum Target {
        case atMost(Double)
        case atLeast(Double)

        var text: String {
            switch self {
            case .atMost(let limit): "≤ \(Self.format(limit))x"
            case .atLeast(let limit): "≥ \(Self.format(limit))x"
            }
        }

        func isMet(by ratio: Double) -> Bool {
            switch self {
            case .atMost(let limit): ratio <= limit
            case .atLeast(let limit): ratio >= limit
            }
        }

        static func format(_ value: Double) -> String { String(format: "%.2f", value) }
    }

    struct Row {
        let part: String
        let measurement: String
        let bridge: String
        let bare: String
        let ratio: Double?
        /// The ratio's lowest and highest value over the rounds, where they were paired.
        let ratioRange: (min: Double, max: Double)?
        let target: Target?
    }

    private(set) var rows: [Row] = []
    /// Smoke runs print the table but do not judge targets.
    let judges: Bool

    mutating func add(
        _ part: String, _ measurement: String, bridge: String, bare: String, ratio: Double?, target: Target?
    ) {
        rows.append(
            Row(
                part: part, measurement: measurement, bridge: bridge, bare: bare, ratio: ratio, ratioRange: nil,
                target: target))
    }

    /// Adds a row whose ratio is the median of the rounds' paired ratios (``Paired``), shown with
    /// their lowest and highest.
    mutating func add(
        _ part: String, _ measurement: String, bridge: String, bare: String, ratio: Spread, target: Target?
    ) {
        rows.append(
            Row(
                part: part, measurement: measurement, bridge: bridge, bare: bare, ratio: ratio.median,
                ratioRange: (ratio.min, ratio.max), target: target))
    }

    /// The number of rows whose target was missed.
    var misses: Int {
        rows.filter { row in
            guard let ratio = row.ratio, let target = row.target else { return false }
            return !target.isMet(by: ratio)
        }.count
    }

    func render() -> String {
        var lines = [
            "| Part | Measurement | BridgeKit | Bare | Ratio | Target | Met |",
            "|---|---|---:|---:|---:|---|---|",
        ]
        for row in rows {
            var ratio = row.ratio.map { String(format: "%.2fx", $0) } ?? "—"
            if let range = row.ratioRange { ratio += String(format: " (%.2f–%.2f)", range.min, range.max) }
            let met: String
            if let value = row.ratio, let target = row.target {
                met = judges ? (target.isMet(by: value) ? "yes" : "**no**") : "(smoke)"
            } else {
                met = "—"
            }
            lines.append(
                "| \(row.part) | \(row.measurement) | \(row.bridge) | \(row.bare) | \(ratio) | \(row.target?.text ?? "—") | \(met) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Formats seconds with a unit that suits them.
    static func duration(_ seconds: Double) -> String {
        if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
        if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.2f s", seconds)
    }

    /// Formats a rate.
    static func rate(_ perSecond: Double) -> String { String(format: "%.0f/s", perSecond) }

    /// Formats bytes as MiB.
    static func mebibytes(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
}
