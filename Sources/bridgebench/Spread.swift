/// The spread of one row over its rounds: the smallest, median and largest value.
struct Spread: Sendable {
    let min: Double
    let median: Double
    let max: Double

    /// The spread of `values` (all NaN when there are none).
    init(_ values: [Double]) {
        min = values.min() ?? .nan
        median = Measure.median(values)
        max = values.max() ?? .nan
    }

    /// Seconds per call as round trips per second: "median/s (slowest–fastest)".
    var rateText: String {
        // Large payloads make a few round trips per second: two decimals there.
        String(format: 1 / median < 100 ? "%.2f/s (%.2f–%.2f)" : "%.0f/s (%.0f–%.0f)", 1 / median, 1 / max, 1 / min)
    }

    /// Seconds as a duration: "median (min–max)".
    var durationText: String {
        "\(ResultTable.duration(median)) (\(ResultTable.duration(min))–\(ResultTable.duration(max)))"
    }

    /// Bytes as MiB: "median (min–max)".
    var mebibytesText: String {
        "\(ResultTable.mebibytes(median)) (\(ResultTable.mebibytes(min))–\(ResultTable.mebibytes(max)))"
    }
}
