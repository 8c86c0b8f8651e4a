/// How a client's JSON value for a column is checked before it is stored (contract §4). Each
/// rule is one function of `FieldRules`; a column's rule comes from its type unless the
/// description names another (`ColumnDescription.rule`).
public enum ValueRule: Sendable, Equatable {
    /// A string of at most `maximum` code points; `allowBlank: false` trims and refuses empty.
    case text(maximum: Int, allowBlank: Bool)
    /// Exactly one of these strings (an enumeration column's CHECK values).
    case oneOf([String])
    case uuid
    case boolean
    /// `numeric(12,2)`: a JSON number or decimal string, ≥ 0, at most two decimals (`FieldRules.price`).
    case amount
    /// An RFC 3339 timestamp or a calendar date meaning midnight UTC (`FieldRules.dueDate`).
    case dateOrTimestamp
    /// A whole number ≥ 0 that fits `integer`; `unit` names it in the error message.
    case wholeNumber(unit: String?)
    /// Strings within the Slack message limits (`FieldRules.slackMessages`): the only `text[]` columns.
    case messages

    /// The rule a column of `type` gets when its description names none.
    public static func defaultRule(for type: ColumnType) -> ValueRule {
        switch type {
        case .uuid: .uuid
        case .text: .text(maximum: FieldRules.shortTextMaximum, allowBlank: true)
        case .enumeration(let values): .oneOf(values)
        case .integer: .wholeNumber(unit: nil)
        case .decimal: .amount
        case .boolean: .boolean
        case .timestamp: .dateOrTimestamp
        case .textArray: .messages
        }
    }
}

/// What a create or a replace (`PUT`) stores in a client-writable column the body leaves out.
/// A `PATCH` never touches a column it does not carry.
public enum OmittedValue: Sendable, Equatable {
    /// This value: a replace resets the column to it.
    case value(ColumnValue)
    /// None: the body must carry the column (422 `required` on create and replace).
    case required
    /// The store's create hook fills it (a listing's owner is the caller); a replace keeps the row's.
    case keep
}
