import API
import HTTPServer
import Logging
import Postgres

/// The real application on a real listening socket (ephemeral port), as `dispatchd serve`
/// wires it, minus process concerns (signals, embedded database, banner).
final class RunningServer {
    let server: HTTPServer
    let client: TestHTTPClient

    init(pool: PostgresPool, migrationsDirectory: String) throws {
        let serverMetrics = HTTPServerMetricsSource()
        let application = APIApplication(
            readiness: DatabaseReadinessCheck(pool: pool, migrator: Migrator(directoryPath: migrationsDirectory)),
            metrics: [serverMetrics, PoolMetricsSource(pool: pool)]
        )
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 4),
            responder: application.makeRouter(),
            middleware: application.middleware,
            logger: Logger(label: "e2e")
        )
        serverMetrics.attach(server)
        try server.start()
        client = TestHTTPClient(port: server.boundPort)
    }

    func stop() {
        server.shutdown(deadline: .seconds(2))
        server.waitUntilStopped()
    }
}
