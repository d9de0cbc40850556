import Foundation

/// IP address hosts in the form the WHATWG URL Standard serializes them, which is what WebKit's
/// URL parser gives a web view's documents and requests (URL Standard, "IPv4 parser", "IPv6
/// parser", "host serializer"). Foundation's `URL.host` keeps an address as written, so without
/// this `127.1` and `127.0.0.1`, or `0:0::1` and `::1`, would be different hosts to the jar.
enum IPAddressHost {
    /// The serialized address when `host` (lowercased, without brackets) is an IPv4 address in
    /// any form the URL Standard's IPv4 parser accepts, or an IPv6 address; `nil` for a name or
    /// for what no parser takes (left as written).
    static func canonical(_ host: Substring) -> String? {
        if host.contains(":") { return ipv6(host) }
        return ipv4(host)
    }

    /// URL Standard, "IPv4 parser": one to four dot-separated numbers (decimal, `0x` hex, or
    /// octal with a leading `0`; one trailing dot allowed), each but the last at most 255, the
    /// last filling the remaining bytes.
    private static func ipv4(_ host: Substring) -> String? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count), let last = parts.last, number(last) != nil else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            numbers.append(value)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let lastLimit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        guard numbers[numbers.count - 1] < lastLimit else { return nil }
        var address = numbers[numbers.count - 1]
        for (index, value) in numbers.dropLast().enumerated() { address += value << (8 * UInt64(3 - index)) }
        return (0..<4).map { String((address >> (8 * UInt64(3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    /// URL Standard, "IPv4 number parser": `nil` for an empty part or one with other characters.
    private static func number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix = 10
        if digits.hasPrefix("0x") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count > 1, digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        if digits.isEmpty { return 0 }
        guard digits.utf8.count <= 20, let value = UInt64(digits, radix: radix) else { return nil }
        return value
    }

    /// URL Standard, "IPv6 serializer": eight lowercase hex pieces without leading zeros, the
    /// first longest run of two or more zero pieces written `::` (an embedded IPv4 address is
    /// written as hex pieces too). `nil` when `inet_pton` does not take it.
    private static func ipv6(_ host: Substring) -> String? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = String(host).withCString { text in
            bytes.withUnsafeMutableBytes { inet_pton(AF_INET6, text, $0.baseAddress) }
        }
        guard parsed == 1 else { return nil }
        let pieces = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var compress: Range<Int>?
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, pieces[end] == 0 { end += 1 }
            if end - index >= 2, end - index > (compress?.count ?? 0) { compress = index..<end }
            index = end
        }
        var out = ""
        index = 0
        while index < 8 {
            if let run = compress, run.lowerBound == index {
                out += index == 0 ? "::" : ":"
                index = run.upperBound
                continue
            }
            out += String(pieces[index], radix: 16)
            if index < 7 { out += ":" }
            index += 1
        }
        return out
    }
}
