import Foundation
import Postgres
import Testing

/// Timestamp and array-literal text formats, parsed and formatted without a server.
@Suite struct TextFormatParsingTests {
    @Test(arguments: [
        ("2026-11-22 10:15:30.123456+00", 1_795_342_530.123456),
        ("2026-11-22 10:15:30+00", 1_795_342_530.0),
        ("2026-11-22 12:15:30.5+02", 1_795_342_530.5),
        ("2026-11-22 15:45:30+05:30", 1_795_342_530.0),
        ("2026-11-22 06:45:30-03:30", 1_795_342_530.0),
        ("2026-11-22T10:15:30.123Z", 1_795_342_530.123),
        ("2026-11-22T10:15:30.123456789Z", 1_795_342_530.123457),
        ("1969-12-31 23:59:59.5+00", -0.5),
        ("2026-11-22", 1_795_305_600.0),
    ])
    func parsesTimestampText(text: String, expected: Double) throws {
        let date = try Date(postgresText: text)
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_001)
    }

    @Test(arguments: ["", "2026-13-01", "2026-02-30", "2026-04-31 10:00:00+00", "2026-02-29", "2026-11-22 25:00", "infinity", "2026-11-22 10:15:30.+00", "2026-11-22 10:15:30 junk"])
    func rejectsMalformedTimestamp(text: String) {
        #expect(throws: PostgresError.self) { try Date(postgresText: text) }
    }

    @Test func formatsUTCWithMicroseconds() {
        let date = Date(timeIntervalSince1970: 1_795_342_530.123456)
        #expect(date.postgresText == "2026-11-22T10:15:30.123456Z")
        #expect(Date(timeIntervalSince1970: -0.5).postgresText == "1969-12-31T23:59:59.500000Z")
    }

    @Test(arguments: ["{}", "{a,\"b c\",NULL}", "{\"\\\"q\\\\\"}"])
    func parsesArrayLiterals(text: String) throws {
        let values = try [String?](postgresText: text)
        switch text {
        case "{}": #expect(values.isEmpty)
        case "{a,\"b c\",NULL}": #expect(values == ["a", "b c", nil])
        default: #expect(values == ["\"q\\"])
        }
    }

    @Test(arguments: ["", "{", "{a", "{{1,2},{3,4}}", "{\"open}", "{a,,b}"])
    func rejectsMalformedArrayLiterals(text: String) {
        #expect(throws: PostgresError.self) { try [String?](postgresText: text) }
    }
}
