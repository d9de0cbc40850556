/// The member names of the objects ``JSONValidator`` is reading, to refuse a name that occurs
/// twice in one object (RFC 8259 section 4).
///
/// Names are kept as byte ranges of the validated text. Two names without a backslash are equal
/// when their bytes are; when either has an escape, both are compared as the UTF-16 code units
/// they stand for, so `"a"`, `"\\u0061"` and `"\\u0061"` written with upper-case hex digits are
/// one name, and lone surrogates compare by value. An object with few members is compared
/// pairwise; a large one through a hash of its names, so no object costs more than linear time.
struct MemberNames {
    private struct Name {
        let start: Int
        let end: Int
        let escaped: Bool
    }

    /// Above this many members, an object's names are found through `index` instead of a scan.
    private static let scanLimit = 16

    private var names: [Name] = []
    /// For each open object with more than `scanLimit` members, outermost first: its first
    /// name's position in `names`, and the positions of its names by hash. Built once per object.
    private var indexes: [(objectStart: Int, positions: [Int: [Int]])] = []

    /// How many names are kept (of every open object).
    var count: Int { names.count }

    /// Forgets the names from position `start` on (an object that ended).
    mutating func removeFrom(_ start: Int) {
        names.removeSubrange(start...)
        while let last = indexes.last, last.objectStart >= start { indexes.removeLast() }
    }

    /// Adds the name `bytes[from..<to]` (between its quotes, already validated) to the object
    /// whose first name is at `objectStart`; `false` when the object already has that name.
    mutating func insert(bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, objectStart: Int) -> Bool {
        let escaped = bytes[from..<to].contains(UInt8(ascii: "\\"))
        let name = Name(start: from, end: to, escaped: escaped)
        let members = names.count - objectStart
        if members < Self.scanLimit {
            for position in objectStart..<names.count where Self.same(names[position], name, in: bytes) {
                return false
            }
        } else {
            if indexes.last?.objectStart != objectStart {
                // This object just passed `scanLimit` members: hash the names it has so far.
                var positions: [Int: [Int]] = [:]
                for position in objectStart..<names.count {
                    positions[Self.hash(names[position], in: bytes), default: []].append(position)
                }
                indexes.append((objectStart, positions))
            }
            let key = Self.hash(name, in: bytes)
            let top = indexes.count - 1
            for position in indexes[top].positions[key] ?? [] where Self.same(names[position], name, in: bytes) {
                return false
            }
            indexes[top].positions[key, default: []].append(names.count)
        }
        names.append(name)
        return true
    }

    private static func same(_ a: Name, _ b: Name, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if !a.escaped && !b.escaped {
            return a.end - a.start == b.end - b.start && bytes[a.start..<a.end].elementsEqual(bytes[b.start..<b.end])
        }
        return codeUnits(a, in: bytes) == codeUnits(b, in: bytes)
    }

    private static func hash(_ name: Name, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        if name.escaped {
            hasher.combine(codeUnits(name, in: bytes))
        } else {
            // The same value `codeUnits` would give, without building it.
            hasher.combine(Array(String(decoding: bytes[name.start..<name.end], as: UTF8.self).utf16))
        }
        return hasher.finalize()
    }

    /// The UTF-16 code units a validated name stands for, escapes resolved.
    private static func codeUnits(_ name: Name, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt16] {
        var units: [UInt16] = []
        var plain: [UInt8] = []
        var index = name.start
        func flush() {
            units.append(contentsOf: String(decoding: plain, as: UTF8.self).utf16)
            plain.removeAll(keepingCapacity: true)
        }
        while index < name.end {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                plain.append(byte)
                index += 1
                continue
            }
            flush()
            let escape = bytes[index + 1]
            switch escape {
            case UInt8(ascii: "u"):
                var value: UInt16 = 0
                for offset in 2..<6 {
                    value = value << 4 | UInt16(HexDigit.value(bytes[index + offset]) ?? 0)
                }
                units.append(value)
                index += 6
                continue
            case UInt8(ascii: "b"): units.append(0x08)
            case UInt8(ascii: "f"): units.append(0x0C)
            case UInt8(ascii: "n"): units.append(0x0A)
            case UInt8(ascii: "r"): units.append(0x0D)
            case UInt8(ascii: "t"): units.append(0x09)
            default: units.append(UInt16(escape))  // `"`, `\` and `/` stand for themselves
            }
            index += 2
        }
        flush()
        return units
    }
}
