/// One problem with one input field: `field` is the JSON name, `code` a stable snake_case
/// identifier (`required`, `too_short`, `invalid`, `unknown_field`…), `message` for people.
public struct FieldError: Sendable, Equatable {
    public var field: String
    public var code: String
    public var message: String

    public init(field: String, code: ErrorCode, message: String) {
        self.field = field
        self.code = code.rawValue
        self.message = message
    }

    /// For codes not yet named in `ErrorCode` (the authentication routes, owned elsewhere).
    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }
}
