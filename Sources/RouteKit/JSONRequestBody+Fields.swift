import Domain
import Foundation
import HTTPServer
import JSON

/// Typed readers for resource columns, by the column's description: its rule (`ValueRule`)
/// and nullability. Each returns nil when the field is absent and a `ColumnValue` when it is
/// present (`.null` when JSON null, and also when the value was refused); every problem is
/// collected as one `FieldError` for its field, so `finish()` reports them all.
extension JSONRequestBody {
    private mutating func raw(_ field: String, nullable: Bool) -> JSONValue?? {
        guard let value = object[field] else { return nil }
        if case .null = value {
            if nullable { return .some(nil) }
            errors.append(FieldError(field: field, code: .notNullable, message: "Must not be null."))
            return .some(nil)
        }
        return .some(value)
    }

    private mutating func typeError(_ field: String, _ expected: String) {
        errors.append(FieldError(field: field, code: .invalidType, message: "Must be \(expected)."))
    }

    /// The value of `column`, checked by its rule; nil when the body does not carry it.
    package mutating func columnValue(_ column: ColumnDescription) -> ColumnValue? {
        let field = column.name
        guard let sent = raw(field, nullable: column.nullable) else { return nil }
        guard let value = sent else { return .null }
        return checked(value, field: field, rule: column.rule) ?? .null
    }

    private mutating func checked(_ value: JSONValue, field: String, rule: ValueRule) -> ColumnValue? {
        switch (rule, value) {
        case (.text(let maximum, let allowBlank), .string(let text)):
            return FieldRules.text(text, field: field, maximum: maximum, allowBlank: allowBlank, errors: &errors).map { .text($0) }
        case (.oneOf(let allowed), .string(let text)):
            return FieldRules.oneOf(text, allowed, field: field, errors: &errors).map { .text($0) }
        case (.uuid, _):
            guard case .string(let text) = value, let id = UUID(uuidString: text) else {
                errors.append(FieldError(field: field, code: .invalidUUID, message: "Must be a UUID."))
                return nil
            }
            return .uuid(id)
        case (.boolean, .bool(let flag)):
            return .boolean(flag)
        case (.amount, .number(let number)):
            return FieldRules.price(FieldRules.numberText(number), field: field, errors: &errors).map { .decimal($0) }
        case (.amount, .string(let text)):
            return FieldRules.price(text, field: field, errors: &errors).map { .decimal($0) }
        case (.dateOrTimestamp, .string(let text)):
            return FieldRules.dueDate(text, field: field, errors: &errors).map { .timestamp($0) }
        case (.wholeNumber(let unit), .number(let number)):
            return FieldRules.wholeNumber(number, unit: unit, field: field, errors: &errors).map { .integer($0) }
        case (.messages, .array(let items)):
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item else { typeError(field, "an array of strings"); return nil }
                texts.append(text)
            }
            return FieldRules.slackMessages(texts, field: field, errors: &errors).map { .textArray($0) }
        default:
            typeError(field, Self.expected(rule))
            return nil
        }
    }

    /// The type a rule expects, for the `invalid_type` message.
    private static func expected(_ rule: ValueRule) -> String {
        switch rule {
        case .text, .oneOf, .uuid: "a string"
        case .boolean: "true or false"
        case .amount: "a number with at most two decimals"
        case .dateOrTimestamp: "an RFC 3339 timestamp or a date"
        case .wholeNumber: "an integer"
        case .messages: "an array of strings"
        }
    }

    /// A UUID field outside the description (a body's `id`): nil when absent, `.some(nil)`
    /// when null (and nullable) or refused.
    package mutating func uuid(_ field: String, nullable: Bool) -> UUID?? {
        guard let sent = raw(field, nullable: nullable) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .string(let text) = value, let id = UUID(uuidString: text) else {
            errors.append(FieldError(field: field, code: .invalidUUID, message: "Must be a UUID."))
            return .some(nil)
        }
        return .some(id)
    }
}
