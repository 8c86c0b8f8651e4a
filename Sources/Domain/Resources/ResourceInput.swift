import Foundation

/// The client-writable columns of one write to a resource, already validated (column name →
/// `ColumnValue`), plus which ones the client sent. Built by the generic input parser from the
/// resource's description and turned into SQL by the store from the same description, so a
/// column added to the description is read, checked, stored and compared without other code.
///
/// Create and replace (`PUT`) store every writable column, a left-out one at its
/// `OmittedValue`; `PATCH` stores only the columns sent.
public struct ResourceInput: Sendable, Equatable {
    public let description: ResourceDescription
    /// The values sent, by column name.
    public private(set) var sent: [String: ColumnValue] = [:]
    /// Server-written columns the client sent back (a work item's `claimed_by`, contract §4):
    /// never stored; the store's rules compare them with the row.
    public var echoed: [String: ColumnValue] = [:]

    public init(_ resource: Resource) {
        self.init(resource.description)
    }

    /// A write to the resource `description` describes (tests use changed copies).
    public init(_ description: ResourceDescription) {
        self.description = description
    }

    /// Records a sent (or, in a store's create hook, a filled-in) value of column `name`.
    public mutating func set(_ name: String, _ value: ColumnValue) {
        sent[name] = value
    }

    public func provides(_ name: String) -> Bool {
        sent[name] != nil
    }

    /// What a write stores in `column`: the value sent; else, on create or replace, the
    /// column's omitted value; nil when the write leaves the column alone (a patch, a `.keep`
    /// column, or a missing `.required` one that `check` reports).
    public func value(_ column: ColumnDescription, patch: Bool) -> ColumnValue? {
        if let value = sent[column.name] { return value }
        guard !patch, case .value(let value) = column.omitted else { return nil }
        return value
    }

    /// The value a write stores in the column called `name` (see `value(_:patch:)`).
    public func value(named name: String, patch: Bool) -> ColumnValue? {
        description.column(name).flatMap { value($0, patch: patch) }
    }

    /// Problems that depend on the operation rather than on one value; `complete` is create or
    /// replace. A `.required` column left out is reported, and so is `status: deleted` on a
    /// resource deleted softly (rows leave through DELETE, so its permission applies).
    public func check(complete: Bool) -> [FieldError] {
        var errors: [FieldError] = []
        if complete {
            for column in description.updatableColumns where column.omitted == .required && sent[column.name] == nil {
                errors.append(FieldError(field: column.name, code: .required, message: "Is required."))
            }
        }
        if description.deletion == .softDelete, sent["status"] == .text("deleted") {
            errors.append(Self.useDelete)
        }
        return errors
    }

    public static let useDelete = FieldError(field: "status", code: .useDelete,
                                             message: "Rows are deleted with DELETE, not by setting status to deleted.")
}
