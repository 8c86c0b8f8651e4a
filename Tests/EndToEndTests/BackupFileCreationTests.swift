import Foundation
import Synchronization
import Testing
import TestSupport

/// A backup holds password and token hashes: no other local user may read it, not even while
/// it is being written, and no one may redirect where it is written (a symlink planted at the
/// temporary name) in a directory others can write.
@Suite struct BackupFileCreationTests {
    /// A database whose dump takes a while to write (a large, poorly compressible avatar), so
    /// the temporary file exists long enough to be seen.
    static func largeDatabase() throws -> TestDatabase {
        let database = try TestDatabase.create()
        try database.pool.execute("""
            INSERT INTO avatars (hash, content_type, bytes)
            SELECT repeat('ab', 32), 'image/png', convert_to(string_agg(md5(i::text || random()::text), ''), 'UTF8')
            FROM generate_series(1, 300000) i
            """)
        database.pool.close()
        return database
    }

    @Test func theArchiveIsOwnerOnlyFromItsFirstByte() throws {
        let database = try Self.largeDatabase()
        let directory = try BackupFixture.directory()
        let file = directory.appendingPathComponent("watched.tar")
        // Every file that appears in the directory while the backup runs, and its mode bits.
        let seen = Mutex([String: mode_t]()), running = Mutex(true)
        let watcher = Thread {
            while running.withLock({ $0 }) {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name != file.lastPathComponent {
                    var info = stat()
                    guard lstat(directory.appendingPathComponent(name).path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                    seen.withLock { $0[name] = ($0[name] ?? 0) | (info.st_mode & 0o777) }
                }
            }
        }
        watcher.start()
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", file.path],
                                                       environment: BackupFixture.environment(try CommandLineDatabaseTests.url(for: database)))
        running.withLock { $0 = false }
        #expect(backup.status == 0, "\(backup.standardError.suffix(600))")
        let temporary = seen.withLock { $0 }
        try #require(!temporary.isEmpty, "the watcher saw no temporary file while the archive was written")
        for (name, mode) in temporary {
            #expect(mode == 0o600, "\(name) had mode \(String(mode, radix: 8)) while it was written")
        }
        var info = stat()
        #expect(lstat(file.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && (info.st_mode & 0o777) == 0o600)
    }

    @Test func aSymlinkPlantedAtTheTemporaryNameIsNotFollowed() throws {
        let database = try Self.largeDatabase()
        let directory = try BackupFixture.directory()
        let file = directory.appendingPathComponent("planted.tar")
        let target = directory.appendingPathComponent("attacker-reads-this").path
        // The name the temporary file had: an attacker keeps a symlink there for the whole run.
        let planted = directory.appendingPathComponent(".planted.tar.partial").path
        let running = Mutex(true)
        let attacker = Thread {
            while running.withLock({ $0 }) { _ = symlink(target, planted) }
        }
        attacker.start()
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", file.path],
                                                       environment: BackupFixture.environment(try CommandLineDatabaseTests.url(for: database)))
        running.withLock { $0 = false }
        #expect(backup.status == 0, "\(backup.standardError.suffix(600))")
        #expect(!FileManager.default.fileExists(atPath: target), "the backup was written through the planted symlink")
        var info = stat()
        #expect(lstat(file.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "the backup is a regular file, not the symlink")
    }
}
