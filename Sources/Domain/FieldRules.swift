import Foundation

/// Value rules for listing, task and activity fields. Each check appends one `FieldError` for
/// its field and returns nil when the value is unacceptable, so a request collects every problem.
public enum FieldRules {
    public static let shortTextMaximum = 200
    public static let titleMaximum = 500
    public static let descriptionMaximum = 10_000
    public static let slackMessagesMaximum = 100
    public static let slackMessageMaximum = 40_000
    /// All Slack messages of one row together. With the limits above this keeps every row the
    /// API accepts well under the 1 MiB list page budget (`LIST_PAGE_MAX_BYTES`), even when
    /// every character needs a 6-byte JSON escape.
    public static let slackMessagesTotalMaximum = 100_000
    /// numeric(12,2): ten integer digits.
    public static let priceMaximum = Decimal(string: "9999999999.99") ?? 0

    /// Text of at most `maximum` characters; `allowBlank: false` refuses empty/whitespace-only.
    /// Stored as given except that required texts are trimmed. Lengths count Unicode code
    /// points, as JSON Schema's `maxLength` in openapi.yaml does: counting grapheme clusters
    /// would let one "character" carry any number of combining marks past the limit.
    public static func text(_ value: String, field: String, maximum: Int, allowBlank: Bool,
                            errors: inout [FieldError]) -> String? {
        let checked = allowBlank ? value : value.trimmingWhitespace()
        if !allowBlank, checked.isEmpty {
            errors.append(FieldError(field: field, code: .blank, message: "Must not be empty."))
            return nil
        }
        if checked.unicodeScalars.count > maximum {
            errors.append(FieldError(field: field, code: .tooLong, message: "Must be at most \(maximum) characters long."))
            return nil
        }
        return checked
    }

    /// One of the enum's exact strings.
    public static func enumValue<Value: RawRepresentable & CaseIterable>(
        _ text: String, _ type: Value.Type, field: String, errors: inout [FieldError]
    ) -> Value? where Value.RawValue == String {
        if let value = Value(rawValue: text) { return value }
        let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
        errors.append(FieldError(field: field, code: .invalidValue, message: "Must be one of: \(allowed)."))
        return nil
    }

    /// One of `allowed` (an enumeration column's values), exactly.
    public static func oneOf(_ text: String, _ allowed: [String], field: String, errors: inout [FieldError]) -> String? {
        if allowed.contains(text) { return text }
        errors.append(FieldError(field: field, code: .invalidValue, message: "Must be one of: \(allowed.joined(separator: ", "))."))
        return nil
    }

    /// A non-negative amount with at most two decimals, up to 9999999999.99. JSON numbers
    /// arrive as binary doubles; their shortest round-trip text is what the client wrote
    /// (`19.99` stays `19.99`), so the decimal places are counted on that text.
    public static func price(_ text: String, field: String = "price", errors: inout [FieldError]) -> Decimal? {
        let invalid = FieldError(field: field, code: .invalidPrice,
                                 message: "Must be a non-negative amount with at most two decimals, up to 9999999999.99.")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigitCharacter),
              parts.count == 1 || (1...2).contains(parts[1].count) && parts[1].allSatisfy(\.isASCIIDigitCharacter),
              let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
              value >= 0, value <= priceMaximum
        else { errors.append(invalid); return nil }
        return value
    }

    /// The text of a JSON number as the client wrote it, for `price`.
    public static func numberText(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `due_date`: an RFC 3339 timestamp (any offset, 0–9 fractional digits) or a calendar date
    /// `YYYY-MM-DD`, which means midnight UTC of that day.
    public static func dueDate(_ text: String, field: String = "due_date", errors: inout [FieldError]) -> Date? {
        if let date = Timestamp.parse(text) { return date }
        if text.utf8.count == 10, let date = Timestamp.parse(text + "T00:00:00Z") { return date }
        errors.append(FieldError(field: field, code: .invalidDate,
                                 message: "Must be an RFC 3339 timestamp like 2026-11-22T10:15:30Z or a date like 2026-11-22."))
        return nil
    }

    /// An integer ≥ 0 that fits the column (int4).
    public static func duration(_ value: Double, field: String = "duration_seconds", errors: inout [FieldError]) -> Int? {
        wholeNumber(value, unit: "seconds", field: field, errors: &errors)
    }

    /// An integer ≥ 0 that fits an `integer` (int4) column; `unit` names it in the message.
    public static func wholeNumber(_ value: Double, unit: String?, field: String, errors: inout [FieldError]) -> Int? {
        guard value.rounded() == value, value >= 0, value <= Double(Int32.max) else {
            let what = unit.map { "a whole number of \($0)" } ?? "a whole number"
            errors.append(FieldError(field: field, code: .invalidValue, message: "Must be \(what) ≥ 0."))
            return nil
        }
        return Int(value)
    }

    /// Slack message texts: at most 100, each at most 40,000 characters, 100,000 in all.
    public static func slackMessages(_ messages: [String], field: String = "source_slack_messages",
                                     errors: inout [FieldError]) -> [String]? {
        let lengths = messages.map(\.unicodeScalars.count)
        guard messages.count <= slackMessagesMaximum, lengths.allSatisfy({ $0 <= slackMessageMaximum }),
              lengths.reduce(0, +) <= slackMessagesTotalMaximum else {
            errors.append(FieldError(field: field, code: .tooLong,
                                     message: "At most \(slackMessagesMaximum) messages of at most \(slackMessageMaximum) characters, "
                                         + "\(slackMessagesTotalMaximum) characters in all."))
            return nil
        }
        return messages
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
