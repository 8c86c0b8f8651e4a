import Foundation

/// A backup file unpacked into a private directory and checked (BackupArchive.open: members,
/// HMAC, checksums). `restore` makes one before it starts or connects to any database, so a
/// foreign or altered file is refused with nothing touched.
package struct CheckedBackup {
    package let file: URL
    package let manifest: BackupManifest
    /// The private directory holding the members; `remove()` deletes it.
    package let directory: URL

    package static func open(_ file: URL, keys: BackupKeyring) throws -> CheckedBackup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatch-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            return CheckedBackup(file: file, manifest: try BackupArchive.open(file, into: directory, keys: keys), directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    package var dump: URL { directory.appendingPathComponent(BackupManifest.dumpName) }

    package func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
