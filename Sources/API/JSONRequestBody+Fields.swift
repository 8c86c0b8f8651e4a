import Domain
import Foundation
import HTTPServer

/// Typed readers for resource fields. Each returns nil when the field is absent, `.some(nil)`
/// when it is JSON null and nullable, and `.some(value)` when acceptable; every problem is
/// collected as one `FieldError` for its field.
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

    /// A text of at most `maximum` characters; `allowBlank: false` trims and refuses empty.
    mutating func text(_ field: String, maximum: Int, nullable: Bool, allowBlank: Bool = true) -> String?? {
        guard let sent = raw(field, nullable: nullable) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .string(let text) = value else { typeError(field, "a string"); return .some(nil) }
        return .some(FieldRules.text(text, field: field, maximum: maximum, allowBlank: allowBlank, errors: &errors))
    }

    /// One of an enum's exact strings (never null).
    mutating func enumeration<Value: RawRepresentable & CaseIterable>(_ field: String, _ type: Value.Type) -> Value?
    where Value.RawValue == String {
        guard let sent = raw(field, nullable: false), let value = sent else { return nil }
        guard case .string(let text) = value else { typeError(field, "a string"); return nil }
        return FieldRules.enumValue(text, type, field: field, errors: &errors)
    }

    mutating func uuid(_ field: String, nullable: Bool) -> UUID?? {
        guard let sent = raw(field, nullable: nullable) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .string(let text) = value, let id = UUID(uuidString: text) else {
            errors.append(FieldError(field: field, code: .invalidUUID, message: "Must be a UUID."))
            return .some(nil)
        }
        return .some(id)
    }

    /// A price: a JSON number or a decimal string, ≥ 0, at most two decimals.
    mutating func price(_ field: String) -> Decimal?? {
        guard let sent = raw(field, nullable: true) else { return nil }
        switch sent {
        case nil: return .some(nil)
        case .number(let number)?: return .some(FieldRules.price(FieldRules.numberText(number), field: field, errors: &errors))
        case .string(let text)?: return .some(FieldRules.price(text, field: field, errors: &errors))
        default: typeError(field, "a number with at most two decimals"); return .some(nil)
        }
    }

    mutating func dueDate(_ field: String) -> Date?? {
        guard let sent = raw(field, nullable: true) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .string(let text) = value else { typeError(field, "an RFC 3339 timestamp or a date"); return .some(nil) }
        return .some(FieldRules.dueDate(text, field: field, errors: &errors))
    }

    mutating func duration(_ field: String) -> Int?? {
        guard let sent = raw(field, nullable: true) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .number(let number) = value else { typeError(field, "an integer"); return .some(nil) }
        return .some(FieldRules.duration(number, field: field, errors: &errors))
    }

    /// An array of strings, or null.
    mutating func strings(_ field: String) -> [String]?? {
        guard let sent = raw(field, nullable: true) else { return nil }
        guard let value = sent else { return .some(nil) }
        guard case .array(let items) = value else { typeError(field, "an array of strings"); return .some(nil) }
        var texts: [String] = []
        for item in items {
            guard case .string(let text) = item else { typeError(field, "an array of strings"); return .some(nil) }
            texts.append(text)
        }
        return .some(FieldRules.slackMessages(texts, field: field, errors: &errors))
    }
}
