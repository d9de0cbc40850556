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
        var a: [Sample] = []
        var b: [Sample] = []
        for round in 0..<max(rounds, 1) {
            // Swap the order every round: whichever runs first may pay for a cold cache.
            if round % 2 == 0 {
                a.append(try await first())
                b.append(try await second())
            } else {
                b.append(try await second())
                a.append(try await first())
            }
        }
        return (median(a), median(b))
    }

    /// Like ``alternating(rounds:_:_:)`` for plain values (seconds per call): the medians.
    static func alternatingValues(
        rounds: Int, isolation: isolated (any Actor)? = #isolation, _ first: () async throws -> Double,
        _ second: () async throws -> Double
    ) async rethrows -> (Double, Double) {
        let (a, b) = try await alternating(
            rounds: rounds, { Sample(wall: try await first(), cpu: .nan) },
            { Sample(wall: try await second(), cpu: .nan) })
        return (a.wall, b.wall)
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
