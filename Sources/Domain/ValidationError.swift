/// Input that is well-formed but not acceptable, with one entry per bad field (contract §4: 422
/// `validation_failed`). Collect every problem before throwing so clients can fix all at once.
public struct ValidationError: Error, Sendable, Equatable {
    public var fields: [FieldError]

    public init(_ fields: [FieldError]) {
        self.fields = fields
    }

    public init(field: String, code: String, message: String) {
        self.fields = [FieldError(field: field, code: code, message: message)]
    }
}
