import Foundation

/// The backups in a directory (files named `dispatch-backup-*.tar`, oldest first by name,
/// which is by time) and how many of them to keep.
package enum BackupRetention {
    package static func backups(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names
            .filter { $0.hasPrefix(BackupMaker.filePrefix) && $0.hasSuffix(BackupMaker.fileSuffix) }
            .sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// Deletes all but the newest `keep` backups (0 keeps everything); returns what it deleted.
    @discardableResult
    package static func prune(_ directory: URL, keep: Int) throws -> [URL] {
        guard keep > 0 else { return [] }
        let doomed = Array(backups(in: directory).dropLast(keep))
        for file in doomed {
            try FileManager.default.removeItem(at: file)
        }
        return doomed
    }
}
