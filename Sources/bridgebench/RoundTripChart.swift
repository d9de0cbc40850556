import Foundation

/// An SVG chart of round-trip time against payload size, both on log scales, one line per
/// series (BridgeKit, the bare echoes, each peer design), written by the benchmark from its own
/// medians so every full run redraws it (docs/performance.md shows it).
struct RoundTripChart {
    let title: String
    private var series: [(name: String, points: [(bytes: Int, seconds: Double)])] = []

    init(title: String) { self.title = title }

    /// Adds one point (a median) to the series `name`, creating it on first use.
    mutating func add(series name: String, bytes: Int, seconds: Double) {
        guard bytes > 0, seconds > 0, seconds.isFinite else { return }
        if let index = series.firstIndex(where: { $0.name == name }) {
            series[index].points.append((bytes, seconds))
        } else {
            series.append((name, [(bytes, seconds)]))
        }
    }

    private static let colors = [
        "#1f77b4", "#2ca02c", "#7f7f7f", "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    ]

    /// The chart as an SVG document (about 900 × 560 px).
    func svg() -> String {
        let width = 900.0
        let height = 560.0
        let left = 80.0
        let right = 250.0
        let top = 50.0
        let bottom = 60.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let points = series.flatMap(\.points)
        let xMin = floor(log10(Double(points.map(\.bytes).min() ?? 10)))
        let xMax = ceil(log10(Double(points.map(\.bytes).max() ?? 10_000_000)))
        let yMin = floor(log10(points.map(\.seconds).min() ?? 1e-4))
        let yMax = ceil(log10(points.map(\.seconds).max() ?? 1))
        func x(_ bytes: Int) -> Double { left + (log10(Double(bytes)) - xMin) / max(xMax - xMin, 1) * plotWidth }
        func y(_ seconds: Double) -> Double { top + (1 - (log10(seconds) - yMin) / max(yMax - yMin, 1)) * plotHeight }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var out = [
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(width))" height="\##(Int(height))" viewBox="0 0 \##(Int(width)) \##(Int(height))" font-family="sans-serif" font-size="12">"##,
            ##"<rect width="100%" height="100%" fill="white"/>"##,
            ##"<text x="\##(f(left))" y="24" font-size="15">\##(Self.escaped(title))</text>"##,
        ]
        for decade in stride(from: xMin, through: xMax, by: 1) {
            let position = left + (decade - xMin) / max(xMax - xMin, 1) * plotWidth
            out.append(
                ##"<line x1="\##(f(position))" y1="\##(f(top))" x2="\##(f(position))" y2="\##(f(top + plotHeight))" stroke="#ddd"/>"##
            )
            out.append(
                ##"<text x="\##(f(position))" y="\##(f(top + plotHeight + 18))" text-anchor="middle">\##(Self.bytesLabel(decade))</text>"##
            )
        }
        for decade in stride(from: yMin, through: yMax, by: 1) {
            let position = top + (1 - (decade - yMin) / max(yMax - yMin, 1)) * plotHeight
            out.append(
                ##"<line x1="\##(f(left))" y1="\##(f(position))" x2="\##(f(left + plotWidth))" y2="\##(f(position))" stroke="#ddd"/>"##
            )
            out.append(
                ##"<text x="\##(f(left - 8))" y="\##(f(position + 4))" text-anchor="end">\##(Self.secondsLabel(decade))</text>"##
            )
        }
        out.append(
            ##"<rect x="\##(f(left))" y="\##(f(top))" width="\##(f(plotWidth))" height="\##(f(plotHeight))" fill="none" stroke="#333"/>"##
        )
        out.append(
            ##"<text x="\##(f(left + plotWidth / 2))" y="\##(f(height - 15))" text-anchor="middle">payload (JSON bytes, log scale)</text>"##
        )
        out.append(
            ##"<text transform="translate(18 \##(f(top + plotHeight / 2))) rotate(-90)" text-anchor="middle">round-trip time (median, log scale)</text>"##
        )
        for (index, line) in series.enumerated() {
            let color = Self.colors[index % Self.colors.count]
            let sorted = line.points.sorted { $0.bytes < $1.bytes }
            let path = sorted.map { "\(f(x($0.bytes))),\(f(y($0.seconds)))" }.joined(separator: " ")
            out.append(##"<polyline fill="none" stroke="\##(color)" stroke-width="2" points="\##(path)"/>"##)
            for point in sorted {
                out.append(
                    ##"<circle cx="\##(f(x(point.bytes)))" cy="\##(f(y(point.seconds)))" r="3" fill="\##(color)"/>"##)
            }
            let legendY = top + 10 + Double(index) * 20
            out.append(
                ##"<line x1="\##(f(left + plotWidth + 15))" y1="\##(f(legendY))" x2="\##(f(left + plotWidth + 40))" y2="\##(f(legendY))" stroke="\##(color)" stroke-width="3"/>"##
            )
            out.append(
                ##"<text x="\##(f(left + plotWidth + 46))" y="\##(f(legendY + 4))">\##(Self.escaped(line.name))</text>"##
            )
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    private static func bytesLabel(_ decade: Double) -> String {
        let bytes = pow(10, decade)
        if bytes >= 1e6 { return String(format: "%.0f MB", bytes / 1e6) }
        if bytes >= 1e3 { return String(format: "%.0f kB", bytes / 1e3) }
        return String(format: "%.0f B", bytes)
    }

    private static func secondsLabel(_ decade: Double) -> String {
        let seconds = pow(10, decade)
        if seconds >= 1 { return String(format: "%.0f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.0f ms", seconds * 1e3) }
        return String(format: "%.0f µs", seconds * 1e6)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
