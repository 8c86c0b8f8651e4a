/// The single error type of the EmbeddedPostgres layer.
public struct EmbeddedPostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// initdb / pg_ctl / postgres were not found.
        case binariesNotFound
        /// A directory could not be created or handed to the `postgres` user.
        case filesystem
        /// A helper process failed (output is in the message).
        case commandFailed
        /// Invalid argument, such as an unsafe database name.
        case invalidArgument
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "EmbeddedPostgresError(\(kind)): \(message)" }
}
