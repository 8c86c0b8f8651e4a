import API
import Accounts
import Backups
import Console
import Foundation
import HTTPServer
import Operations
import Postgres

/// The console's wiring for `serve`: its routes on the application's router, its middleware
/// innermost, the error ring outermost (it must see every final answer), and this instance's
/// heartbeat, whose rows and samples feed the Server page and the overview.
struct ConsoleWiring {
    let router: Router
    let middleware: [any Middleware]
    let heartbeat: InstanceHeartbeat

    init(application: APIApplication, auth: AuthService, pool: PostgresPool, migrator: Migrator,
         configuration: Configuration, backups: BackupService, mail: ConsoleMailSetup) throws {
        heartbeat = InstanceHeartbeat(version: ServerVersion.current, interval: .seconds(configuration.heartbeatInterval),
                                      pool: pool, metrics: application.metrics, logger: auth.logger)
        let console = try ConsoleApplication(
            auth: auth,
            server: ConsoleServerFacts(version: ServerVersion.current, pool: pool, migrator: migrator, heartbeat: heartbeat,
                                       errors: application.failures,
                                       backups: { BackupOverview(service: backups, scheduled: configuration.backup.daily).summary() }),
            secureCookies: configuration.consoleSecureCookies,
            webhooks: application.webhooks, slack: application.slack, backups: backups, failures: application.failures, mail: mail
        )
        var router = application.makeRouter()
        console.register(on: &router)
        self.router = router
        middleware = application.middleware + [console.middleware]
    }

    /// The address this instance's heartbeat names: the machine's host name and the bound port
    /// (what an operator finds it by behind a proxy).
    static func address(port: Int) -> String {
        "\(ProcessInfo.processInfo.hostName):\(port)"
    }
}

extension Configuration {
    /// Console cookies are `Secure` when the server's public URL (PUBLIC_URL) is https: a
    /// browser then never sends them over plain HTTP.
    var consoleSecureCookies: Bool {
        mail.publicURL?.lowercased().hasPrefix("https://") ?? false
    }
}
