/// Eight bytes at a time: which lanes of a 64-bit word hold a given byte, a byte below a bound,
/// or a byte of 0x80 and above. The scans that look for the few bytes that need attention in
/// long runs of plain text (the JSON check of a page's body, ``JSONValidator``; the escaping of
/// a reply, ``JavaScriptEmbedding``) read words with ``load(_:at:)`` and test them here.
///
/// Each test sets the high bit of a lane that matches. Lanes above a match may be set too (a
/// borrow runs upwards from it), but the lowest set lane is always exact, and with the word
/// read as little-endian it is the first matching byte in memory order: ``firstLane(_:)``.
enum ByteLanes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `base + index`, the first in the lowest lane. The caller checks that
    /// eight bytes are there.
    @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
    }

    /// The lanes of `word` equal to `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let y = word ^ (ones &* UInt64(byte))
        return (y &- ones) & ~y & highs
    }

    /// The lanes of `word` below `bound`, which must be at most 0x80.
    @inline(__always)
    static func below(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highs
    }

    /// The lanes of `word` of 0x80 and above (not ASCII).
    @inline(__always)
    static func nonASCII(_ word: UInt64) -> UInt64 { word & highs }

    /// The index, 0 to 7, of the lowest set lane of `found`, which must not be 0.
    @inline(__always)
    static func firstLane(_ found: UInt64) -> Int { found.trailingZeroBitCount / 8 }
}
