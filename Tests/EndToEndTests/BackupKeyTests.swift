import Foundation
import Postgres
import Testing
import TestSupport

/// Only files made with the installation's backup key are restored (BACKUP_KEY, else the
/// token secret), old keys stay accepted through BACKUP_KEY_PREVIOUS, and even a signed file's
/// dump is verified as a role that is not a superuser.
@Suite struct BackupKeyTests {
    static let otherSecret = String(repeating: "z", count: 40)
    static let newKey = String(repeating: "n", count: 40)

    @Test func aForeignOrAlteredFileIsRefusedAndARotatedKeyStillRestoresOldFiles() throws {
        let cluster = try ScratchCluster()
        let environment = BackupFixture.environment(try cluster.createDatabase("dispatch"))
        #expect(try CommandLineTests.runDispatchd(["migrate"], environment: environment).status == 0)
        let directory = try BackupFixture.directory()

        // Another installation (another secret) wrote this one.
        var foreignEnvironment = environment
        foreignEnvironment["JWT_SECRET"] = Self.otherSecret
        let foreign = directory.appendingPathComponent("foreign.tar")
        #expect(try CommandLineTests.runDispatchd(["backup", "--output", foreign.path], environment: foreignEnvironment).status == 0)
        let refused = try CommandLineTests.runDispatchd(["restore", "--verify", foreign.path], environment: environment)
        #expect(refused.status == 1, "\(refused.standardOutput)")
        #expect(refused.standardError.contains("which this installation does not hold"), "\(refused.standardError.suffix(600))")
        #expect(try BackupTamperTests.scratchDatabases(cluster) == 0)

        // Ours, with one number of its manifest changed (as a restore-and-compare would not notice).
        let ours = directory.appendingPathComponent("ours.tar")
        #expect(try CommandLineTests.runDispatchd(["backup", "--output", ours.path], environment: environment).status == 0)
        let altered = try BackupCraft.editingManifest(of: ours, in: directory) { manifest in
            manifest["roles"] = ["postgres", "x\"; COPY (SELECT '') TO PROGRAM 'true'; --"]
        }
        let alteredResult = try CommandLineTests.runDispatchd(["restore", "--verify", altered.path], environment: environment)
        #expect(alteredResult.status == 1)
        #expect(alteredResult.standardError.contains("has been altered since it was written"), "\(alteredResult.standardError.suffix(600))")

        // Rotation: a new BACKUP_KEY, the old secret listed as previous; both files verify.
        var rotated = environment
        rotated["BACKUP_KEY"] = Self.newKey
        rotated["BACKUP_KEY_PREVIOUS"] = BackupFixture.secret
        let fresh = directory.appendingPathComponent("fresh.tar")
        #expect(try CommandLineTests.runDispatchd(["backup", "--output", fresh.path], environment: rotated).status == 0)
        for file in [ours, fresh] {
            let result = try CommandLineTests.runDispatchd(["restore", "--verify", file.path], environment: rotated)
            #expect(result.status == 0, "\(file.lastPathComponent): \(result.standardOutput)\(result.standardError.suffix(600))")
        }
        // Without the previous key the old file is foreign.
        rotated["BACKUP_KEY_PREVIOUS"] = nil
        #expect(try CommandLineTests.runDispatchd(["restore", "--verify", ours.path], environment: rotated).status == 1)
    }

    /// Hostile objects can reach a signed backup (whoever could create them in the source
    /// database): a materialized view whose function runs a program on the database host when
    /// pg_restore refreshes it.
    @Test func verifyLoadsTheDumpAsARoleThatIsNotASuperuser() throws {
        let cluster = try ScratchCluster()
        let environment = BackupFixture.environment(try cluster.createDatabase("dispatch"))
        let marker = "/tmp/dispatch-verify-role-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let source = try cluster.connect("dispatch")
        try source.runTrustedScript("""
            CREATE FUNCTION hostile() RETURNS int LANGUAGE plpgsql VOLATILE AS $f$
            BEGIN
                IF current_database() LIKE 'dispatch_verify_%' THEN
                    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'touch \(marker)');
                END IF;
                RETURN 1;
            END $f$;
            CREATE MATERIALIZED VIEW hostile_view AS SELECT hostile() AS i;
            """)
        source.close()
        let file = try BackupFixture.directory().appendingPathComponent("hostile.tar")
        #expect(try CommandLineTests.runDispatchd(["backup", "--output", file.path], environment: environment).status == 0)
        let verified = try CommandLineTests.runDispatchd(["restore", "--verify", file.path], environment: environment)
        #expect(!FileManager.default.fileExists(atPath: marker), "the dump ran a program as a superuser")
        #expect(verified.status == 1, "the load fails: \(verified.standardOutput)")
        // PostgreSQL's refusal of a program to a role without that privilege.
        #expect(verified.standardError.contains("pg_execute_server_program"), "\(verified.standardError.suffix(600))")
        #expect(try BackupTamperTests.scratchDatabases(cluster) == 0, "the scratch database and its role are dropped")
    }
}
