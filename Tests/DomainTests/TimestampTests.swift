import Domain
import Foundation
import Testing

/// RFC 3339 parsing: real calendar days only, leap years by the Gregorian rule.
@Suite struct TimestampTests {
    @Test(arguments: ["2026-02-30T00:00:00Z", "2026-04-31T12:00:00Z", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
                      "2026-09-31T00:00:00+02:00", "2026-11-31T23:59:59.999Z", "2026-01-32T00:00:00Z", "2026-00-10T00:00:00Z"])
    func impossibleDaysAreRefusedNotRolledOver(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test(arguments: [("2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"), ("2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"),
                      ("2026-04-30T23:00:00-02:00", "2026-05-01T01:00:00.000Z"), ("2026-12-31T00:00:00Z", "2026-12-31T00:00:00.000Z"),
                      ("2026-02-28T10:15:30.5+00:00", "2026-02-28T10:15:30.500Z")])
    func realDaysParse(_ text: String, _ formatted: String) throws {
        #expect(Timestamp.format(try #require(Timestamp.parse(text))) == formatted)
    }

    @Test func microsecondRangeCoversEveryParsableInstant() throws {
        let earliest = try #require(Timestamp.parse("0000-01-01T00:00:00+23:59"))
        let latest = try #require(Timestamp.parse("9999-12-31T23:59:59.999999999-23:59"))
        #expect(Timestamp.microsecondRange.contains(Int64(earliest.timeIntervalSince1970 * 1_000_000)))
        #expect(Timestamp.microsecondRange.contains(Int64(latest.timeIntervalSince1970 * 1_000_000)))
        #expect(!Timestamp.microsecondRange.contains(Int64.max))
        #expect(!Timestamp.microsecondRange.contains(Int64.min))
    }
}
