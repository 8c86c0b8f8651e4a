import Credentials
import Foundation
import Postgres
import Testing
import TestSupport

/// A backup file is input from wherever it was stored (an off-site copy, a shared disk): a
/// restore must run nothing that the file says, and must refuse a file it did not sign before
/// any database is touched (docs/operators/backups.md, "What a backup file is trusted with").
@Suite struct BackupTamperTests {
    /// What an attacker who can write the file (not the key) does: add SQL where a restore used
    /// to run it, and fix up every checksum the file carries.
    @Test func aCraftedArchiveThatWouldRunAProgramIsRefusedAndRunsNothing() throws {
        let cluster = try ScratchCluster()
        let environment = BackupFixture.environment(try cluster.createDatabase("dispatch"))
        #expect(try CommandLineTests.runDispatchd(["migrate"], environment: environment).status == 0)
        let directory = try BackupFixture.directory()
        let good = directory.appendingPathComponent("good.tar")
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", good.path], environment: environment)
        #expect(backup.status == 0, "\(backup.standardError.suffix(600))")

        // The cluster runs as the postgres user: the marker goes where it may write.
        let marker = "/tmp/dispatch-tamper-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let crafted = try BackupCraft.withRolesLine(from: good, in: directory,
                                                    line: "COPY (SELECT '') TO PROGRAM 'touch \(marker)';")
        for arguments in [["restore", "--verify", crafted.path], ["restore", "--force", crafted.path]] {
            let result = try CommandLineTests.runDispatchd(arguments, environment: environment)
            #expect(result.status == 1, "\(arguments) must be refused: \(result.standardOutput)\(result.standardError.suffix(600))")
            #expect(!FileManager.default.fileExists(atPath: marker), "\(arguments) ran the archive's command")
            #expect(try Self.scratchDatabases(cluster) == 0, "\(arguments) touched the cluster before refusing")
            #expect(try Self.tables(cluster) > 0, "\(arguments) dropped the data before refusing")
        }
    }

    /// Scratch databases and verification roles left on the test's own cluster.
    static func scratchDatabases(_ cluster: ScratchCluster) throws -> Int {
        let connection = try cluster.connect("dispatch")
        defer { connection.close() }
        return try connection.query("""
            SELECT (SELECT count(*) FROM pg_database WHERE datname LIKE 'dispatch_verify_%')
                 + (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'dispatch_verify_%') AS n
            """).first?.decode("n") ?? -1
    }

    static func tables(_ cluster: ScratchCluster) throws -> Int {
        let connection = try cluster.connect("dispatch")
        defer { connection.close() }
        return try connection.query("SELECT count(*)::int8 AS n FROM pg_tables WHERE schemaname = 'public'").first?.decode("n") ?? -1
    }
}

/// Rewrites backup files as an attacker with write access to them (and without the key) can:
/// unpack with tar, change members, fix the manifest's checksums, pack again in order.
enum BackupCraft {
    /// A copy of `file` whose roles.sql (added when the file has none) ends with `line`, with
    /// the manifest's member sizes and SHA-256 made to match.
    static func withRolesLine(from file: URL, in directory: URL, line: String) throws -> URL {
        try rewrite(file, in: directory) { work, members in
            let roles = work.appendingPathComponent("roles.sql")
            let existing = (try? String(contentsOf: roles, encoding: .utf8)) ?? ""
            try Data((existing + line + "\n").utf8).write(to: roles)
            if !members.contains("roles.sql") { members.insert("roles.sql", at: 1) }
            let listed = members
            try editManifest(in: work) { manifest in
                manifest["members"] = try listed.filter { $0 != "manifest.json" && $0 != "manifest.hmac" }.map { name in
                    let bytes = try Data(contentsOf: work.appendingPathComponent(name))
                    return ["name": name, "bytes": bytes.count, "sha256": SHA256.hex([UInt8](bytes))] as [String: Any]
                }
            }
        }
    }

    /// A copy of `file` with its manifest changed by `edit`, every other member as it was.
    static func editingManifest(of file: URL, in directory: URL, _ edit: @escaping (inout [String: Any]) throws -> Void) throws -> URL {
        try rewrite(file, in: directory) { work, _ in try editManifest(in: work, edit) }
    }

    private static func editManifest(in work: URL, _ edit: (inout [String: Any]) throws -> Void) throws {
        let url = work.appendingPathComponent("manifest.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        try edit(&manifest)
        try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys]).write(to: url)
    }

    private static func rewrite(_ file: URL, in directory: URL, _ change: (URL, inout [String]) throws -> Void) throws -> URL {
        let work = directory.appendingPathComponent("craft-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var members = try tar(["-tf", file.path]).split(separator: "\n").map(String.init)
        try tar(["-xf", file.path, "-C", work.path])
        try change(work, &members)
        let output = directory.appendingPathComponent("crafted-\(UUID().uuidString).tar")
        try tar(["--format=posix", "-cf", output.path, "-C", work.path] + members)
        return output
    }

    @discardableResult
    static func tar(_ arguments: [String]) throws -> String {
        let result = try CommandLineTests.run(URL(fileURLWithPath: "/usr/bin/tar"), arguments, environment: [:])
        guard result.status == 0 else { throw TestSupportError("tar \(arguments): \(result.standardError)") }
        return result.standardOutput
    }
}
