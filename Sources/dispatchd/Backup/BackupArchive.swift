import Credentials
import EmbeddedPostgres
import Foundation

/// A backup file: an uncompressed POSIX tar holding `manifest.json`, `roles.sql` and
/// `database.dump` (pg_dump's custom format, itself compressed), in that order. Plain tar so
/// an operator can inspect or unpack one with standard tools (`tar -tvf`, `tar -xOf FILE
/// manifest.json`) and pg_restore the dump by hand.
enum BackupArchive {
    static let members = [BackupManifest.manifestName, BackupManifest.rolesName, BackupManifest.dumpName]

    /// Packs the three members of `directory` into `file`, atomically: the tar is written
    /// beside it and renamed, so a half-written backup never carries the final name.
    static func write(from directory: URL, to file: URL) throws {
        let partial = file.deletingLastPathComponent().appendingPathComponent("." + file.lastPathComponent + ".partial")
        try? FileManager.default.removeItem(at: partial)
        let result = try ProcessRunner.run(try tar(), ["--format=posix", "-cf", partial.path, "-C", directory.path] + members)
        guard result.status == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw BackupError("cannot write \(file.path): tar: \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        // The dump holds password hashes and session token hashes: owner only.
        guard chmod(partial.path, 0o600) == 0, rename(partial.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw BackupError("cannot finish \(file.path) (chmod or rename): errno \(errno)")
        }
    }

    /// Unpacks `file` into `directory` (empty) and checks it: exactly the three members, a
    /// readable manifest, and each member's size and SHA-256 as the manifest records them.
    static func open(_ file: URL, into directory: URL) throws -> BackupManifest {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw BackupError("\(file.path): no such readable file")
        }
        let listing = try ProcessRunner.run(try tar(), ["-tf", file.path])
        guard listing.status == 0 else {
            throw BackupError("\(file.path) is damaged or not a Dispatch backup (tar: \(listing.output.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        let names = listing.output.split(separator: "\n").map(String.init)
        guard names == members else {
            throw BackupError("\(file.path) is not a Dispatch backup: expected the members \(members.joined(separator: ", ")), found \(names.joined(separator: ", "))")
        }
        // Only the listed names: nothing in the file chooses where it is written.
        let extraction = try ProcessRunner.run(try tar(), ["-xf", file.path, "-C", directory.path] + members)
        guard extraction.status == 0 else {
            throw BackupError("\(file.path) is damaged (tar: \(extraction.output.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        let manifest = try BackupManifest.decode(Data(contentsOf: directory.appendingPathComponent(BackupManifest.manifestName)))
        guard manifest.format == BackupManifest.currentFormat else {
            throw BackupError("\(file.path) has format \(manifest.format); this server reads \(BackupManifest.currentFormat)")
        }
        guard manifest.members.map(\.name) == [BackupManifest.rolesName, BackupManifest.dumpName] else {
            throw BackupError("\(file.path): the manifest does not describe roles.sql and database.dump")
        }
        for expected in manifest.members {
            let actual = try member(directory.appendingPathComponent(expected.name))
            guard actual == expected else {
                throw BackupError("\(file.path) is damaged: \(expected.name) has \(actual.bytes) bytes, SHA-256 \(actual.sha256); the manifest records \(expected.bytes) bytes, SHA-256 \(expected.sha256)")
            }
        }
        return manifest
    }

    /// Size and SHA-256 of one member file.
    static func member(_ file: URL) throws -> BackupManifest.Member {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        guard let digest = SHA256.hex(fileAtPath: file.path) else { throw BackupError("cannot read \(file.path)") }
        return BackupManifest.Member(name: file.lastPathComponent, bytes: (attributes[.size] as? Int) ?? -1, sha256: digest)
    }

    private static func tar() throws -> String {
        guard let path = ["/usr/bin/tar", "/bin/tar"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BackupError("tar not found in /usr/bin or /bin (apt-get install tar)")
        }
        return path
    }
}
