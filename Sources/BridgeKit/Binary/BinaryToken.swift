/// The shape and source of binary transfer tokens: 32 lower-case hexadecimal digits, 128 bits
/// from the system's cryptographically secure generator (`SystemRandomNumberGenerator`).
enum BinaryToken {
    /// A new random token.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next() as UInt64, generator.next() as UInt64]
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in words {
            for shift in stride(from: 60, through: 0, by: -4) {
                bytes.append(digits[Int((word >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` has a token's shape.
    static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 32
            && utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            }
    }
}
