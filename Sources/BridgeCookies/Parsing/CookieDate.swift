import Foundation

/// Cookie dates: the lenient RFC 6265 §5.1.1 parser for `Expires`, and the IMF-fixdate
/// writer (RFC 7231 §7.1.1.1) for `expires=` in `document.cookie` assignments.
///
/// Written by hand on purpose: `DateFormatter` depends on locale data and knows only fixed
/// patterns, while §5.1.1 is a token algorithm (Foundation's `HTTPCookie` accepts just three
/// patterns, reference Part 2.1). Calendar arithmetic is proleptic Gregorian in UTC.
enum CookieDate {
    /// The latest instant written or stored: 9999-12-31T23:59:59Z (RFC 6265 §5.2.1 clamps to
    /// the latest representable date; IMF-fixdate has a four-digit year).
    static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    // MARK: - RFC 6265 §5.1.1

    /// Parses a cookie date with the RFC 6265 §5.1.1 algorithm.
    ///
    /// The string is split into date-tokens at delimiters; the first token that looks like a
    /// time, a day of month, a month and a year (tried in that order) sets each value; two-digit
    /// years 70–99 become 19xx and 00–69 become 20xx.
    /// - Returns: the instant in UTC, or `nil` when a part is missing or out of range (day
    ///   1–31, year ≥ 1601, hour ≤ 23, minute ≤ 59, second ≤ 59) or the date does not exist.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        for token in tokens(Array(text.utf8)) {
            if time == nil, let value = matchTime(token) {
                time = value
            } else if dayOfMonth == nil, let value = matchDigits(token, count: 1...2) {
                dayOfMonth = value
            } else if month == nil, let value = matchMonth(token) {
                month = value
            } else if year == nil, let value = matchDigits(token, count: 2...4) {
                year = value
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(dayOfMonth), year >= 1601,
            time.hour <= 23, time.minute <= 59, time.second <= 59,
            dayOfMonth <= daysInMonth(month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: dayOfMonth)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return min(Date(timeIntervalSince1970: TimeInterval(seconds)), latest)
    }

    /// §5.1.1 delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func tokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Reads the run of digits at the start of `token`.
    /// - Returns: the value and the index after the run, or `nil` when the run length is not in `count`.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, from start: Int, count: ClosedRange<Int>) -> (
        Int, Int
    )? {
        var index = start
        var value = 0
        while index < token.endIndex, isDigit(token[index]) {
            value = value * 10 + Int(token[index] - 0x30)
            index += 1
            if index - start > count.upperBound { return nil }
        }
        return count.contains(index - start) ? (value, index) : nil
    }

    /// `1*N DIGIT [ non-digit *OCTET ]`: all leading digits form the number.
    private static func matchDigits(_ token: ArraySlice<UInt8>, count: ClosedRange<Int>) -> Int? {
        leadingNumber(token, from: token.startIndex, count: count)?.0
    }

    /// `time-field ":" time-field ":" time-field [ non-digit *OCTET ]`, time-field = 1*2DIGIT.
    private static func matchTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        let colon = UInt8(ascii: ":")
        guard let (hour, afterHour) = leadingNumber(token, from: token.startIndex, count: 1...2),
            afterHour < token.endIndex, token[afterHour] == colon,
            let (minute, afterMinute) = leadingNumber(token, from: afterHour + 1, count: 1...2),
            afterMinute < token.endIndex, token[afterMinute] == colon,
            let (second, _) = leadingNumber(token, from: afterMinute + 1, count: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    private static let monthPrefixes: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun",
        "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

    /// `month = ( "jan" / … / "dec" ) *OCTET`, case-insensitive. - Returns: 1–12.
    private static func matchMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        return monthPrefixes.firstIndex(of: prefix).map { $0 + 1 }
    }

    // MARK: - IMF-fixdate

    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun",
        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// Formats `date` as an IMF-fixdate, for example `Wed, 01 Jan 2031 00:00:00 GMT`.
    ///
    /// English names, GMT, whole seconds (rounded down); dates are clamped to years 1601–9999.
    static func imfFixdate(_ date: Date) -> String {
        let earliest: TimeInterval = -11_644_473_600  // 1601-01-01T00:00:00Z
        let seconds = Int(min(max(date.timeIntervalSince1970, earliest), latest.timeIntervalSince1970).rounded(.down))
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = ((days % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday (index 4)
        return weekdayNames[weekday] + ", " + pad(day, 2) + " " + monthNames[month - 1] + " " + pad(year, 4) + " "
            + pad(secondOfDay / 3_600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + " GMT"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: - Civil calendar (proleptic Gregorian, H. Hinnant's days_from_civil)

    private static func floorDivide(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a civil date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
