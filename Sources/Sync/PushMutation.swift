import Domain
import Foundation
import HTTPServer
import JSON
import Resources
import RouteKit

/// One entry of a sync push (contract §6), checked on its own so that one malformed entry is
/// rejected without blocking the rest of the queue.
package struct PushMutation {
    package enum Operation: String { case upsert, delete, claim, release }

    /// The synced kinds a client may write (`ResourceWriter.Kind`): users are managed through
    /// the user routes, history rows are server-written: neither can be pushed.
    package typealias Kind = ResourceWriter.Kind

    package let mutationID: UUID
    package let operation: Operation
    package let kind: Kind
    package let id: UUID
    package let record: [String: JSONValue]
    package let baseVersion: Int?

    package static let onlyWorkItemsClaim = ResourceWriter.onlyWorkItemsClaim

    package static let allowedFields: Set<String> = ["mutation_id", "op", "type", "id", "record", "base_version"]

    /// The mutation id when one can be read (to label a rejection), and the parsed mutation or
    /// the field problems.
    package static func parse(_ value: JSONValue) -> (mutationID: UUID?, result: Result<PushMutation, DomainError>) {
        guard case .object(let fields) = value else {
            return (nil, .failure(JSONRequestBody.validationFailed([
                .init(field: "mutation", code: .invalidType, message: "Each mutation must be a JSON object.")])))
        }
        var errors: [FieldError] = []
        for key in fields.keys.sorted() where !allowedFields.contains(key) {
            errors.append(FieldError(field: key, code: .unknownField, message: "Unknown field."))
        }
        let mutationID = uuid(fields["mutation_id"], "mutation_id", &errors)
        let operation = enumValue(fields["op"], "op", Operation.init(rawValue:), "upsert, delete, claim or release", &errors)
        let kind = enumValue(fields["type"], "type", Kind.init(rawValue:), "listing, task, activity, note or subtask", &errors)
        let id = uuid(fields["id"], "id", &errors)
        var record: [String: JSONValue] = [:]
        switch fields["record"] {
        case .object(let object)?: record = object
        case nil, .null?:
            if operation == .upsert {
                errors.append(FieldError(field: "record", code: .required, message: "An upsert needs the record."))
            }
        default:
            errors.append(FieldError(field: "record", code: .invalidType, message: "Must be a JSON object."))
        }
        var baseVersion: Int?
        switch fields["base_version"] {
        case nil, .null?: break
        case .number(let number)? where number >= 1 && number <= Double(Int32.max) && number.rounded() == number:
            baseVersion = Int(number)
        default:
            errors.append(FieldError(field: "base_version", code: .invalidValue, message: "Must be a positive integer."))
        }
        if let operation, let kind, operation == .claim || operation == .release, !kind.isClaimable {
            errors.append(onlyWorkItemsClaim)
        }
        guard errors.isEmpty, let mutationID, let operation, let kind, let id else {
            return (mutationID, .failure(JSONRequestBody.validationFailed(errors)))
        }
        return (mutationID, .success(PushMutation(mutationID: mutationID, operation: operation, kind: kind,
                                                  id: id, record: record, baseVersion: baseVersion)))
    }

    private static func uuid(_ value: JSONValue?, _ field: String, _ errors: inout [FieldError]) -> UUID? {
        guard case .string(let text)? = value, let id = UUID(uuidString: text) else {
            errors.append(FieldError(field: field, code: value == nil ? .required : .invalidUUID, message: "Must be a UUID."))
            return nil
        }
        return id
    }

    private static func enumValue<Value>(_ value: JSONValue?, _ field: String, _ make: (String) -> Value?,
                                         _ allowed: String, _ errors: inout [FieldError]) -> Value? {
        guard case .string(let text)? = value, let parsed = make(text) else {
            errors.append(FieldError(field: field, code: value == nil ? .required : .invalidValue,
                                     message: "Must be one of \(allowed)."))
            return nil
        }
        return parsed
    }
}
