import Foundation
import Postgres
import Testing
import TestSupport

/// A database restored by hand into another cluster (pg_restore, pg_upgrade) still gets a new
/// sync epoch: `serve` notices at start that the cluster's system identifier changed.
@Suite struct DatabaseEpochTests {
    @Test func serveStartsANewEpochWhenTheDatabaseMovedToAnotherCluster() throws {
        let database = try TestDatabase.create()
        let user: String = try #require(try database.pool.query("""
            INSERT INTO users (email, name, user_type) VALUES ('moved@example.com', 'Moved', 'admin') RETURNING id::text AS id
            """).first?.decode("id"))
        let before = try #require(try database.pool.query("""
            SELECT epoch, (SELECT txid::text FROM users WHERE id = \(user)::uuid) AS txid FROM dispatch_identity
            """).first)
        // As a dump of another cluster carries it.
        try database.pool.execute("UPDATE dispatch_identity SET cluster_id = 'another cluster'")

        let served = try ServedDispatchd(environment: BackupFixture.environment(database.url).merging(["SHUTDOWN_TIMEOUT": "1"]) { $1 })
        let log = try served.stop()
        #expect(log.contains("now lives in another PostgreSQL cluster"), "\(log.suffix(600))")
        let after = try #require(try database.pool.query("""
            SELECT epoch, generation, cluster_id = dispatch_cluster_id() AS here,
                   (SELECT txid::text FROM users WHERE id = \(user)::uuid) AS txid FROM dispatch_identity
            """).first)
        #expect(try after.decode("epoch", as: String.self) != before.decode("epoch", as: String.self))
        #expect(try after.decode("generation", as: Int.self) == 1)
        #expect(try after.decode("here", as: Bool.self))
        #expect(try after.decode("txid", as: String.self) != before.decode("txid", as: String.self), "rows re-stamped")

        // The next start finds the cluster it recorded: nothing changes.
        let again = try ServedDispatchd(environment: BackupFixture.environment(database.url).merging(["SHUTDOWN_TIMEOUT": "1"]) { $1 })
        _ = try again.stop()
        #expect(try database.pool.query("SELECT generation FROM dispatch_identity").first?.decode("generation", as: Int.self) == 1)
    }
}
