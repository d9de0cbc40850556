import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The time one measured run took: wall-clock and process CPU time (all threads), per operation.
struct Sample: Sendable {
    /// Wall-clock seconds per operation.
    var wall: Double
    /// Process CPU seconds (every thread: the caller, Swift's worker threads, GLib) per operation.
    var cpu: Double
}

/// Timing helpers. Every ratio the benchmark reports compares two samples taken side by side in
/// the same process and the same run, alternating, so machine noise hits both about equally.
enum Measure {
    /// Process CPU time in seconds (`CLOCK_PROCESS_CPUTIME_ID`).
    static func processCPUTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Monotonic wall-clock time in seconds.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `body` once and returns its time divided by `operations`.
    static func time(
        operations: Int, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Void
    ) async rethrows -> Sample {
        let wall0 = now()
        let cpu0 = processCPUTime()
        try await body()
        let cpu1 = processCPUTime()
        let wall1 = now()
        let count = Double(max(operations, 1))
        return Sample(wall: (wall1 - wall0) / count, cpu: (cpu1 - cpu0) / count)
    }

    /// Runs `rounds` rounds of `first` then `second` (alternating, so drift and noise hit both)
    /// and returns the median sample of each.
    static func alternating(
        rounds: Int, isolation: isolated (any Actor)? = #isolation, _ first: () async throws -> Sample,
        _ second: () async throws -> Sample
    ) async rethrows -> (Sample, Sample) {
        let pairs = try await pairedRounds(rounds: rounds, first, second)
        return (median(pairs.map(\.0)), median(pairs.map(\.1)))
    }

    /// Like ``alternating(rounds:_:_:)`` for plain values (seconds per call): the medians, and
    /// the spread of `second ÷ first` round by round (``Paired``).
    static func alternatingValues(
        rounds: Int, isolation: isolated (any Actor)? = #isolation, _ first: () async throws -> Double,
        _ second: () async throws -> Double
    ) async rethrows -> Paired {
        let pairs = try await pairedRounds(
            rounds: rounds, { Sample(wall: try await first(), cpu: .nan) },
            { Sample(wall: try await second(), cpu: .nan) })
        return Paired(first: pairs.map(\.0.wall), second: pairs.map(\.1.wall))
    }

    /// `rounds` rounds of `first` and `second`, one of each per round, the order swapped every
    /// round (whichever runs first may pay for a cold cache).
    private static func pairedRounds(
        rounds: Int, isolation: isolated (any Actor)? = #isolation, _ first: () async throws -> Sample,
        _ second: () async throws -> Sample
    ) async rethrows -> [(Sample, Sample)] {
        var pairs: [(Sample, Sample)] = []
        for round in 0..<max(rounds, 1) {
            if round % 2 == 0 {
                let a = try await first()
                pairs.append((a, try await second()))
            } else {
                let b = try await second()
                pairs.append((try await first(), b))
            }
        }
        return pairs
    }

    /// The element-wise median of samples.
    static func median(_ samples: [Sample]) -> Sample {
        Sample(wall: median(samples.map(\.wall)), cpu: median(samples.map(\.cpu)))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Keeps a value alive so the optimizer cannot remove the work that produced it.
@inline(never)
func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Two sides measured in the same rounds (seconds per call, one value of each per round).
///
/// A row's ratio is the median of the rounds' own ratios, each taken between two measurements
/// made moments apart: a change of the machine's load during a run moves both sides of a round
/// together, so it cancels in that round's ratio, where it would not cancel in the ratio of
/// two medians taken over the whole run (docs/performance.md, "Spread and how many runs").
struct Paired: Sendable {
    /// The first side's values, round by round.
    let first: [Double]
    /// The second side's values, in the same rounds.
    let second: [Double]

    /// The first side's median.
    var firstMedian: Double { Measure.median(first) }
    /// The second side's median.
    var secondMedian: Double { Measure.median(second) }

    /// The spread of `second ÷ first` over the rounds (seconds of the second side per second of
    /// the first: for rates, how many times faster the first side is).
    var ratio: Spread { Spread(zip(first, second).map { $0.1 / $0.0 }) }

    /// The spread of `first ÷ second` over the rounds.
    var inverseRatio: Spread { Spread(zip(first, second).map { $0.0 / $0.1 }) }
}
