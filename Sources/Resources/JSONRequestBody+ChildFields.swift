import Domain
import Foundation
import HTTPServer
import RouteKit

/// Field readers the note and subtask routes need beyond the basic ones; each records its
/// problem in `errors` (through `add`) like the rest of `JSONRequestBody`.
extension JSONRequestBody {
    /// A UUID string; JSON null counts as absent.
    package mutating func uuidField(_ field: String, required: Bool) -> UUID? {
        switch object[field] {
        case nil, .null?:
            if required { add(FieldError(field: field, code: .required, message: "Is required.")) }
            return nil
        case .string(let text)?:
            if let id = UUID(uuidString: text) { return id }
            fallthrough
        default:
            add(FieldError(field: field, code: .invalidUUID, message: "Must be a UUID."))
            return nil
        }
    }

    /// A JSON number; JSON null counts as absent. Range checks are the caller's (`ChildRules`).
    package mutating func numberField(_ field: String) -> Double? {
        switch object[field] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default:
            add(FieldError(field: field, code: .invalidType, message: "Must be a number."))
            return nil
        }
    }

    /// `parent_type` of a note or subtask.
    package mutating func parentType(forSubtask: Bool) -> ParentType? {
        guard let text = string("parent_type", required: true) else { return nil }
        var problems: [FieldError] = []
        let type = ChildRules.checkParentType(text, forSubtask: forSubtask, errors: &problems)
        problems.forEach { add($0) }
        return type
    }
}
