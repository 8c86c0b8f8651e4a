import Foundation

/// timestamptz text conversion without DateFormatter (which is slow and locale-sensitive).
/// Works in whole microseconds, the precision of PostgreSQL timestamps.
enum PostgresTimestamp {
    /// `2026-11-22T10:15:30.123456Z`
    static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, fraction) = floorDivide(micros, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(fraction, 6) + "Z"
    }

    /// Parses PostgreSQL output (`2026-11-22 10:15:30.123456+00`, `…+05:30`, `…-03:30:15`)
    /// and RFC 3339 (`T` separator, `Z`). A date alone is midnight UTC; a missing offset is UTC.
    static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var secondOfDay: Int64 = 0
        var micros: Int64 = 0
        var offsetSeconds: Int64 = 0
        if !scanner.atEnd {
            guard scanner.skip(" ") || scanner.skip("T") || scanner.skip("t"),
                  let hour = scanner.number(digits: 2), scanner.skip(":"),
                  let minute = scanner.number(digits: 2), scanner.skip(":"),
                  let second = scanner.number(digits: 2),
                  hour <= 24, minute <= 59, second <= 60
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if scanner.skip(".") {
                var digits = 0
                var scale: Int64 = 100_000
                var nanosRoundingDigit: Int64 = 0
                while let digit = scanner.digit() {
                    if digits < 6 {
                        micros += digit * scale
                        scale /= 10
                    } else if digits == 6 {
                        nanosRoundingDigit = digit
                    }
                    digits += 1
                }
                guard digits > 0 else { return nil }
                if nanosRoundingDigit >= 5 { micros += 1 }
            }
            if scanner.skip("Z") || scanner.skip("z") {
                offsetSeconds = 0
            } else if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2) else { return nil }
                var offset = hours * 3600
                if scanner.skip(":") {
                    guard let minutes = scanner.number(digits: 2) else { return nil }
                    offset += minutes * 60
                    if scanner.skip(":") {
                        guard let seconds = scanner.number(digits: 2) else { return nil }
                        offset += seconds
                    }
                } else if let minutes = scanner.number(digits: 2) {
                    offset += minutes * 60
                }
                offsetSeconds = sign * offset
            }
            guard scanner.atEnd else { return nil }
        }
        let seconds = days(fromYear: year, month: month, day: day) * 86_400 + secondOfDay - offsetSeconds
        let totalMicros = seconds * 1_000_000 + micros
        return Date(timeIntervalSince1970: Double(totalMicros) / 1_000_000)
    }

    /// Days in `month` of `year`; a day past it is malformed, never rolled into the next month.
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's civil-from-days / days-from-civil algorithms (proleptic Gregorian).
    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a >= 0 ? a / b : (a - b + 1) / b
        return (quotient, a - quotient * b)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// Minimal cursor over ASCII bytes for the timestamp parser.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, index < bytes.count, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int64(bytes[index] - 48)
    }

    mutating func number(digits count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
