import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import HTTPServer
import Logging
import Postgres

/// The real application on a real listening socket (ephemeral port), as `dispatchd serve`
/// wires it, minus process concerns (signals, embedded database, banner).
final class RunningServer {
    let server: HTTPServer
    let client: TestHTTPClient

    init(pool: PostgresPool, migrationsDirectory: String) throws {
        let application = APIApplication(
            readiness: DatabaseReadinessCheck(pool: pool, migrator: Migrator(directoryPath: migrationsDirectory))
        )
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 4),
            responder: application.makeRouter(),
            middleware: application.middleware,
            logger: Logger(label: "e2e")
        )
        try server.start()
        client = TestHTTPClient(port: server.boundPort)
    }

    func stop() {
        server.shutdown(deadline: .seconds(2))
        server.waitUntilStopped()
    }
}
