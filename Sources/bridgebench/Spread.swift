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

    /// Half the width of the median's 95% confidence interval, as a fraction of the median: the
    /// order statistics of ranks n/2 ∓ 0.98·√n of the sorted values (the distribution-free interval
    /// of a median, from the binomial distribution of ranks; its normal approximation). Infinite for
    /// fewer than 6 values, whose interval is the whole range.
    static func medianPrecision(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let n = sorted.count
        guard n >= 6 else { return .infinity }
        let reach = 0.98 * Double(n).squareRoot()
        let low = Swift.max(Int((Double(n) / 2 - reach).rounded(.down)) - 1, 0)
        let high = Swift.min(Int((Double(n) / 2 + reach).rounded(.up)), n - 1)
        let median = Measure.median(sorted)
        return median > 0 ? (sorted[high] - sorted[low]) / 2 / median : .infinity
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
