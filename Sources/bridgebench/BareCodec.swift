import Foundation

/// The bare side of the native path: Foundation's `JSONDecoder` and `JSONEncoder` on the same
/// `BenchPayload` the router's task takes and returns, options text in, result text out.
///
/// The encoder writes what BridgeKit's encoder writes (``BareCodec/makeEncoder()``: sorted keys, raw `/`),
/// so both sides produce the same JSON text and the ratio is what the bridge adds around it.
struct BareCodec {
    let optionsText: String
    let side: NativePathBench.BareSide
    /// Calls in flight at once for ``NativePathBench/BareSide/codecWithHop``, as on the router's side.
    let batch: Int
    private let decoder = JSONDecoder()
    private let encoder = BareCodec.makeEncoder()
    private let sink = ScriptSink()
    private var posted = 0

    init(optionsText: String, side: NativePathBench.BareSide, batch: Int) {
        self.optionsText = optionsText
        self.side = side
        self.batch = batch
        sink.dropScripts()
    }

    /// Converts the options `count` times.
    mutating func run(_ count: Int) async throws {
        switch side {
        case .codec:
            for _ in 0..<count {
                let options = try decoder.decode(BenchPayload.self, from: Data(optionsText.utf8))
                keep(String(decoding: try encoder.encode(options), as: UTF8.self))
            }
        case .codecImmediate:
            // As the router with an immediate task: decode and encode in a Swift task started on
            // this thread (`Task.immediate`), which an `async` handler needs.
            for _ in 0..<count {
                let operation: @Sendable () async -> Void = { [decoder, encoder, sink, optionsText] in
                    sink.keep(Self.convert(optionsText, decoder: decoder, encoder: encoder))
                }
                #if compiler(>=6.2)
                if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                    Task.immediate(operation: operation)
                } else {
                    Task(operation: operation)
                }
                #else
                Task(operation: operation)
                #endif
            }
            posted += count
            if sink.deliveredCount < posted {
                await sink.wait(untilDelivered: posted)
            }
        case .codecWithHop:
            // As the router with a concurrent task: decode and encode in a new Swift task and
            // hand the text to a sink; wait for each batch.
            var left = count
            while left > 0 {
                let now = min(left, batch)
                for _ in 0..<now {
                    Task { [decoder, encoder, sink, optionsText] in
                        sink.keep(Self.convert(optionsText, decoder: decoder, encoder: encoder))
                    }
                }
                posted += now
                left -= now
                if sink.deliveredCount < posted {
                    await sink.wait(untilDelivered: posted)
                }
            }
        }
    }

    /// The options text decoded into ``BenchPayload`` and encoded again (`""` if either fails,
    /// which the bench's own correctness check rules out).
    private static func convert(_ optionsText: String, decoder: JSONDecoder, encoder: JSONEncoder) -> String {
        guard let options = try? decoder.decode(BenchPayload.self, from: Data(optionsText.utf8)),
            let json = try? encoder.encode(options)
        else { return "" }
        return String(decoding: json, as: UTF8.self)
    }

    /// The encoder of the bare side: `JSONEncoder` with BridgeKit's output formatting
    /// (`.sortedKeys`, `.withoutEscapingSlashes`, see `BridgeJSON`), so the bare side writes the
    /// same bytes as the router.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
