import Credentials
import EmbeddedPostgres
import Foundation
import Glibc

/// A backup file: an uncompressed POSIX tar holding `manifest.json`, `manifest.hmac` and
/// `database.dump` (pg_dump's custom format, itself compressed), in that order. Plain tar so
/// an operator can inspect or unpack one with standard tools (`tar -tvf`, `tar -xOf FILE
/// manifest.json`) and pg_restore the dump by hand.
package enum BackupArchive {
    package static let members = [BackupManifest.manifestName, BackupManifest.signatureName, BackupManifest.dumpName]
    /// What format 1 held: recognised only to say why it is refused.
    private static let unsignedMembers = [BackupManifest.manifestName, "roles.sql", BackupManifest.dumpName]

    /// Packs the members of `directory` into `file`, atomically: the tar goes to a temporary
    /// file beside it, renamed when complete, so a half-written backup never carries the final
    /// name. The temporary file is created owner-only (the dump holds password and token
    /// hashes) by this process itself, under a random name and with O_EXCL|O_NOFOLLOW, before
    /// a byte is written: no other local user can read it meanwhile or point it elsewhere.
    package static func write(from directory: URL, to file: URL) throws {
        let suffix = try SecureRandom.token(byteCount: 12)
        let partial = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(suffix).partial")
        let descriptor = Glibc.open(partial.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BackupError("cannot create \(partial.path): errno \(errno)") }
        var finished = false
        defer {
            close(descriptor)
            if !finished { unlink(partial.path) }
        }
        // The umask can only remove bits; fchmod makes it exactly 0600 whatever it is.
        guard fchmod(descriptor, 0o600) == 0 else { throw BackupError("cannot restrict \(partial.path): errno \(errno)") }
        let result = try ProcessRunner.run(try tar(), ["--format=posix", "-cf", "-", "-C", directory.path] + members,
                                           standardOutput: descriptor)
        guard result.status == 0 else {
            throw BackupError("cannot write \(file.path): tar: \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        guard fsync(descriptor) == 0, rename(partial.path, file.path) == 0 else {
            throw BackupError("cannot finish \(file.path) (fsync or rename): errno \(errno)")
        }
        finished = true
    }

    /// Unpacks `file` into `directory` (empty) and checks it before anything reads it as a
    /// backup: exactly the three members, each a regular file; the manifest's HMAC under one of
    /// `keys` (so the file was written by someone holding the key); then each member's size
    /// and SHA-256 as the manifest records them.
    package static func open(_ file: URL, into directory: URL, keys: BackupKeyring) throws -> BackupManifest {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw BackupError("\(file.path): no such readable file")
        }
        let listing = try ProcessRunner.run(try tar(), ["-tf", file.path])
        guard listing.status == 0 else {
            throw BackupError("\(file.path) is damaged or not a Dispatch backup (tar: \(listing.output.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        let names = listing.output.split(separator: "\n").map(String.init)
        guard names != unsignedMembers else {
            throw BackupError("\(file.path) was written by an earlier release (format dispatch-backup/1, not signed); this release restores only signed backups. Take a new backup, or restore it by hand with pg_restore if you trust where it came from (docs/operators/backups.md)")
        }
        guard names == members else {
            throw BackupError("\(file.path) is not a Dispatch backup: expected the members \(members.joined(separator: ", ")), found \(names.joined(separator: ", "))")
        }
        // Only the listed names: nothing in the file chooses where it is written.
        let extraction = try ProcessRunner.run(try tar(), ["-xf", file.path, "-C", directory.path, "--no-same-owner", "--no-same-permissions"] + members)
        guard extraction.status == 0 else {
            throw BackupError("\(file.path) is damaged (tar: \(extraction.output.trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        for name in members {
            var info = stat()
            guard lstat(directory.appendingPathComponent(name).path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw BackupError("\(file.path) is not a Dispatch backup: \(name) is not a regular file")
            }
        }
        let manifestBytes = try Data(contentsOf: directory.appendingPathComponent(BackupManifest.manifestName))
        try keys.verify(manifest: manifestBytes, signature: try Data(contentsOf: directory.appendingPathComponent(BackupManifest.signatureName)),
                        of: file.path)
        let manifest = try BackupManifest.decode(manifestBytes)
        guard manifest.format == BackupManifest.currentFormat else {
            throw BackupError("\(file.path) has format \(manifest.format); this server reads \(BackupManifest.currentFormat)")
        }
        guard manifest.members.map(\.name) == [BackupManifest.dumpName] else {
            throw BackupError("\(file.path): the manifest does not describe database.dump")
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
    package static func member(_ file: URL) throws -> BackupManifest.Member {
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
