import Foundation
import Testing

@testable import BridgeCookies

/// RFC 6265 §5.1.1–§5.1.4, one named row per rule of each step.
@Suite("RFC 6265 5.1 table: dates, canonical host, domain-match, paths")
struct RFC6265DateAndMatchTableTests {
    @Test(
        "RFC 6265 5.1.1 cookie-date, every step",
        arguments: [
            // Step 1: tokens split at delimiters (%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E).
            Row("1 IMF-fixdate", "Wed, 01 Jan 2031 00:00:00 GMT", utc(2031, 1, 1)),
            Row("1 RFC 850 with dashes", "Wednesday, 01-Jan-31 00:00:00 GMT", utc(2031, 1, 1)),
            Row("1 asctime", "Wed Jan  1 00:00:00 2031", utc(2031, 1, 1)),
            Row("1 slashes, semicolons and brackets are delimiters", "[01/Jan/2031;00:00:00]", utc(2031, 1, 1)),
            Row("1 a time needs its colons, which are not delimiters", "01 Jan 2031 00 00 00", nil),
            // Step 2: the first token of each production, tried as time, day-of-month, month, year.
            Row("2 any order", "2031 00:00:00 Jan 01", utc(2031, 1, 1)),
            Row("2 the first time wins", "01 Jan 2031 00:00:01 00:00:02", utc(2031, 1, 1, 0, 0, 1)),
            Row("2 time with one-digit fields", "01 Jan 2031 1:2:3", utc(2031, 1, 1, 1, 2, 3)),
            Row("2 time followed by non-digits", "01 Jan 2031 10:20:30GMT", utc(2031, 1, 1, 10, 20, 30)),
            Row("2 three-digit time field is no time", "01 Jan 2031 001:00:00", nil),
            Row("2 month is case-insensitive", "01 jAN 2031 00:00:00", utc(2031, 1, 1)),
            Row("2 month may have trailing text", "01 January 2031 00:00:00", utc(2031, 1, 1)),
            Row("2 day-of-month followed by non-digits", "1st Jan 2031 00:00:00", utc(2031, 1, 1)),
            Row("2 three-digit day is no day", "001 Jan 2031 00:00:00", nil),
            Row("2 five-digit year is no year", "01 Jan 20310 00:00:00", nil),
            Row("2 trailing tokens and zones are ignored", "Wed, 01 Jan 2031 00:00:00 GMT+0100 extra", utc(2031, 1, 1)),
            // Steps 3 and 4: two-digit years.
            Row("3 year 70 is 1970", "01 Jan 70 00:00:00", utc(1970, 1, 1)),
            Row("3 year 99 is 1999", "01 Jan 99 00:00:00", utc(1999, 1, 1)),
            Row("4 year 00 is 2000", "01 Jan 00 00:00:00", utc(2000, 1, 1)),
            Row("4 year 69 is 2069", "01 Jan 69 00:00:00", utc(2069, 1, 1)),
            // Step 5: every part must be found.
            Row("5 no time", "01 Jan 2031", nil),
            Row("5 no day", "Jan 2031 00:00:00", nil),
            Row("5 no month", "01 2031 00:00:00", nil),
            Row("5 no year", "01 Jan 00:00:00", nil),
            Row("5 empty", "", nil),
            // Step 6: ranges.
            Row("6 day 0", "00 Jan 2031 00:00:00", nil),
            Row("6 day 32", "32 Jan 2031 00:00:00", nil),
            Row("6 year 1600", "01 Jan 1600 00:00:00", nil),
            Row("6 year 1601", "01 Jan 1601 00:00:00", utc(1601, 1, 1)),
            Row("6 hour 24", "01 Jan 2031 24:00:00", nil),
            Row("6 minute 60", "01 Jan 2031 00:60:00", nil),
            Row("6 second 60", "01 Jan 2031 00:00:60", nil),
            // Step 7: the date must exist.
            Row("7 31 April", "31 Apr 2031 00:00:00", nil),
            Row("7 29 February of a leap year", "29 Feb 2032 00:00:00", utc(2032, 2, 29)),
            Row("7 29 February 2100 (not leap)", "29 Feb 2100 00:00:00", nil),
            Row("7 29 February 2000 (leap)", "29 Feb 2000 00:00:00", utc(2000, 2, 29)),
            // Step 8: UTC, clamped to the latest date the jar writes.
            Row("8 last second of 9999", "31 Dec 9999 23:59:59", utc(9999, 12, 31, 23, 59, 59)),
        ] as [Row<String, Date?>])
    func cookieDate(_ row: Row<String, Date?>) {
        #expect(CookieDate.parse(row.input) == row.expected)
    }

    @Test(
        "RFC 6265 5.1.2 canonical host: lowercase, IPv6 without brackets",
        arguments: [
            Row("lowercased", "WWW.Example.COM", "www.example.com"),
            Row("A-label kept", "xn--bcher-kva.de", "xn--bcher-kva.de"),
            Row("IPv6 brackets removed", "[::1]", "::1"),
        ])
    func canonicalHost(_ row: Row<String, String>) {
        #expect(CookieRules.canonicalHost(row.input) == row.expected)
    }

    @Test(
        "RFC 6265 5.1.3 domain-match",
        arguments: [
            Row("identical", ("example.com", "example.com"), true),
            Row("suffix after a dot", ("www.example.com", "example.com"), true),
            Row("deep suffix after a dot", ("a.b.example.com", "example.com"), true),
            Row("suffix without a dot", ("badexample.com", "example.com"), false),
            Row("domain longer than host", ("example.com", "www.example.com"), false),
            Row("unrelated", ("example.org", "example.com"), false),
            Row("IPv4 host never by suffix", ("1.2.3.4", "2.3.4"), false),
            Row("IPv4 identical", ("1.2.3.4", "1.2.3.4"), true),
            Row("IPv6 identical", ("::1", "::1"), true),
            Row("host ending in a number is an IP", ("www.0x1", "0x1"), false),
            Row(
                "case is canonicalized first (5.1.2)", (CookieRules.canonicalHost("WWW.EXAMPLE.com"), "example.com"),
                true),
        ])
    func domainMatch(_ row: Row<(String, String), Bool>) {
        #expect(CookieRules.domainMatches(host: row.input.0, domain: row.input.1) == row.expected)
    }

    @Test(
        "RFC 6265 5.1.4 default-path",
        arguments: [
            Row("empty path", "", "/"),
            Row("not starting with '/'", "relative/path", "/"),
            Row("root", "/", "/"),
            Row("one '/' only", "/file", "/"),
            Row("directory with trailing '/'", "/a/", "/a"),
            Row("file in a directory", "/a/b", "/a"),
            Row("deep", "/a/b/c.html", "/a/b"),
        ])
    func defaultPath(_ row: Row<String, String>) {
        #expect(CookieRules.defaultPath(ofRequestPath: row.input) == row.expected)
    }

    @Test(
        "RFC 6265 5.1.4 path-match",
        arguments: [
            Row("identical", ("/a", "/a"), true),
            Row("root matches everything", ("/anything/x", "/"), true),
            Row("prefix ending in '/'", ("/a/b", "/a/"), true),
            Row("prefix followed by '/'", ("/a/b", "/a"), true),
            Row("prefix followed by another character", ("/ab", "/a"), false),
            Row("cookie path longer", ("/a", "/a/"), false),
            Row("case-sensitive", ("/A", "/a"), false),
            Row("percent-encoded compared as is", ("/a%20b/c", "/a%20b"), true),
        ])
    func pathMatch(_ row: Row<(String, String), Bool>) {
        #expect(CookieRules.pathMatches(requestPath: row.input.0, cookiePath: row.input.1) == row.expected)
    }
}
