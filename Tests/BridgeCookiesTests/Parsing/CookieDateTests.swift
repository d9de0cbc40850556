import Foundation
import Testing

@testable import BridgeCookies

@Suite("Cookie dates (RFC 6265 5.1.1, IMF-fixdate)")
struct CookieDateTests {
    @Test(
        "RFC 6265 5.1.1 cookie-date parses the three HTTP date forms",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
            "Sun Nov  6 08:49:37 1994",  // asctime
        ])
    func parsesHTTPDateForms(_ text: String) {
        #expect(CookieDate.parse(text) == utc(1994, 11, 6, 8, 49, 37))
    }

    @Test(
        "RFC 6265 5.1.1 cookie-date is lenient about delimiters, order, case and trailing text",
        arguments: [
            ("Wed, 01-Jan-2031 00:00:00 GMT", utc(2031, 1, 1)),
            ("01 jan 2031 00:00:00", utc(2031, 1, 1)),
            ("2031 JANUARY 1 0:0:0", utc(2031, 1, 1)),
            ("Thu, 2 Jan 2031 1:02:03GMT+07", utc(2031, 1, 2, 1, 2, 3)),
            ("31-Dec-2030 23:59:59 garbage ;; here", utc(2030, 12, 31, 23, 59, 59)),
            ("Tue, 29 Feb 2032 12:00:00 GMT", utc(2032, 2, 29, 12)),
        ])
    func parsesLenientForms(_ text: String, _ expected: Date) {
        #expect(CookieDate.parse(text) == expected)
    }

    @Test(
        "RFC 6265 5.1.1 cookie-date maps two-digit years 70-99 to 19xx and 00-69 to 20xx",
        arguments: [
            ("01 Jan 70 00:00:00", 1970), ("01 Jan 99 00:00:00", 1999),
            ("01 Jan 00 00:00:00", 2000), ("01 Jan 69 00:00:00", 2069),
        ])
    func twoDigitYears(_ text: String, _ year: Int) {
        #expect(CookieDate.parse(text) == utc(year, 1, 1))
    }

    @Test(
        "RFC 6265 5.1.1 cookie-date rejects missing parts, out-of-range values and dates that do not exist",
        arguments: [
            "",  // nothing
            "01 Jan 2031",  // no time
            "Jan 2031 00:00:00",  // no day of month
            "01 2031 00:00:00",  // no month
            "01 Jan 00:00:00",  // no year
            "00 Jan 2031 00:00:00",  // day 0
            "32 Jan 2031 00:00:00",  // day 32
            "01 Jan 1600 00:00:00",  // year before 1601
            "01 Jan 2031 24:00:00",  // hour 24
            "01 Jan 2031 00:60:00",  // minute 60
            "01 Jan 2031 00:00:60",  // second 60
            "30 Feb 2031 00:00:00",  // no Feb 30
            "29 Feb 2031 00:00:00",  // 2031 is not a leap year
            "31 Apr 2031 00:00:00",  // April has 30 days
            "01 Jan 2031 123:00:00",  // time field with three digits
        ])
    func rejectsInvalid(_ text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test(
        "IMF-fixdate uses English names, two-digit days, GMT and the right weekday",
        arguments: [
            (utc(2031, 1, 1), "Wed, 01 Jan 2031 00:00:00 GMT"),
            (utc(1970, 1, 1), "Thu, 01 Jan 1970 00:00:00 GMT"),
            (utc(2032, 2, 29, 23, 59, 59), "Sun, 29 Feb 2032 23:59:59 GMT"),
            (utc(1969, 12, 31, 23, 59, 59), "Wed, 31 Dec 1969 23:59:59 GMT"),
            (Date(timeIntervalSince1970: 1_924_992_000.9), "Wed, 01 Jan 2031 00:00:00 GMT"),
        ])
    func imfFixdate(_ date: Date, _ expected: String) {
        #expect(CookieDate.imfFixdate(date) == expected)
    }

    @Test("IMF-fixdate clamps to the four-digit year range")
    func imfFixdateClamps() {
        #expect(CookieDate.imfFixdate(.distantFuture) == "Mon, 01 Jan 4001 00:00:00 GMT")
        #expect(CookieDate.imfFixdate(Date(timeIntervalSince1970: 1e13)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(CookieDate.imfFixdate(.distantPast) == "Mon, 01 Jan 1601 00:00:00 GMT")
    }

    @Test("IMF-fixdate output parses back to the same second (RFC 6265 5.1.1)")
    func roundTrip() {
        var seconds: Int64 = -11_644_473_600
        while seconds < 253_402_300_799 {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(CookieDate.parse(CookieDate.imfFixdate(date)) == date)
            seconds += 86_400 * 97 + 3_661
        }
    }
}
