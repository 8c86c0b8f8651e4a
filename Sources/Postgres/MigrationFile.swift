import Foundation

/// One `NNNN_name.sql` file.
public struct MigrationFile: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let fileName: String
    public let sql: String

    public init(version: Int, name: String, fileName: String, sql: String) {
        self.version = version
        self.name = name
        self.fileName = fileName
        self.sql = sql
    }

    /// Parses `0001_create_users.sql` → (1, "create_users"): at least four digits, an
    /// underscore, then letters, digits, `_` or `-`.
    static func parseFileName(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let version = Int(digits), version > 0,
              !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        return (version, String(name))
    }

    /// Reads and validates every `.sql` file in `directory` (other files are ignored),
    /// sorted by version.
    static func load(from directory: URL) throws -> [MigrationFile] {
        let fileNames: [String]
        do {
            fileNames = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError(kind: .unreadableDirectory, message: "cannot read migrations directory \(directory.path): \(error)")
        }
        var files: [MigrationFile] = []
        for fileName in fileNames.sorted() where fileName.lowercased().hasSuffix(".sql") && !fileName.hasPrefix(".") {
            guard let (version, name) = parseFileName(fileName) else {
                throw MigrationError(
                    kind: .invalidFile,
                    message: "migration file \"\(fileName)\" must be named NNNN_name.sql (digits, underscore, [A-Za-z0-9_-], lowercase .sql)")
            }
            let url = directory.appendingPathComponent(fileName)
            guard let data = FileManager.default.contents(atPath: url.path),
                  let sql = String(data: data, encoding: .utf8)
            else {
                throw MigrationError(kind: .invalidFile, message: "migration file \"\(fileName)\" is unreadable or not UTF-8", versions: [version])
            }
            files.append(MigrationFile(version: version, name: name, fileName: fileName, sql: sql))
        }
        files.sort { $0.version < $1.version }
        for (index, file) in files.enumerated() {
            if index > 0, files[index - 1].version == file.version {
                throw MigrationError(
                    kind: .duplicateVersion,
                    message: "migration version \(file.version) is used by both \(files[index - 1].fileName) and \(file.fileName)",
                    versions: [file.version])
            }
            if file.version != index + 1 {
                throw MigrationError(
                    kind: .missingVersion,
                    message: "migration versions must be 1, 2, 3, … without gaps; expected \(index + 1) but found \(file.fileName)",
                    versions: [index + 1])
            }
        }
        return files
    }
}

/// A row of `schema_migrations`.
public struct AppliedMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let checksum: String
    public let appliedAt: Date
}

/// Where the database stands relative to the migration files.
public struct MigrationStatus: Sendable {
    public let applied: [AppliedMigration]
    /// Files not yet applied, in order.
    public let pending: [MigrationFile]
    /// Versions recorded in the database but absent from the files.
    public let ahead: [AppliedMigration]
    /// Versions whose file changed after it was applied.
    public let checksumMismatches: [AppliedMigration]

    /// Fully migrated and consistent with the files: what readiness (`/readyz`) requires.
    public var isUpToDate: Bool { pending.isEmpty && ahead.isEmpty && checksumMismatches.isEmpty }
}
