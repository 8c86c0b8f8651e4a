/// Why the migrator refused to run. Database failures unrelated to a specific migration
/// are thrown as `PostgresError`.
public struct MigrationError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The migrations directory cannot be read.
        case unreadableDirectory
        /// A `.sql` file does not match `NNNN_name.sql` or is not UTF-8.
        case invalidFile
        /// Two files share a version number.
        case duplicateVersion
        /// Versions are not 1, 2, 3, … without holes.
        case missingVersion
        /// The database has applied versions that these files do not contain (it is ahead).
        case databaseAhead
        /// A file was edited after it was applied.
        case checksumMismatch
        /// A migration failed; its transaction rolled back and nothing was recorded.
        case migrationFailed
        /// A migration ended its own transaction (COMMIT/ROLLBACK in the file).
        case transactionControlInMigration
    }

    public var kind: Kind
    public var message: String
    /// The migration versions involved.
    public var versions: [Int]
    /// The server error behind `.migrationFailed`.
    public var underlying: PostgresError?

    public init(kind: Kind, message: String, versions: [Int] = [], underlying: PostgresError? = nil) {
        self.kind = kind
        self.message = message
        self.versions = versions
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "MigrationError(\(kind)): \(message): \(underlying)" }
        return "MigrationError(\(kind)): \(message)"
    }
}
