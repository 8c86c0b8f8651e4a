import API
import Accounts
import Backups
import Console
import Foundation
import HTTPServer
import Postgres

/// The console's wiring for `serve`: its routes on the application's router, its middleware
/// innermost, the error ring outermost (it must see every final answer), and the sampler
/// behind the Server page's charts.
struct ConsoleWiring {
    let router: Router
    let middleware: [any Middleware]
    let sampler: MetricsSampler

    init(application: APIApplication, auth: AuthService, pool: PostgresPool, migrator: Migrator,
         configuration: Configuration, backups: BackupService, mail: ConsoleMailSetup) throws {
        let errors = ErrorRing()
        sampler = MetricsSampler(metrics: application.metrics, pool: pool, sync: application.sync)
        let console = try ConsoleApplication(
            auth: auth,
            server: ConsoleServerFacts(version: ServerVersion.current, pool: pool, migrator: migrator, sampler: sampler, errors: errors),
            secureCookies: configuration.consoleSecureCookies,
            webhooks: application.webhooks, slack: application.slack, backups: backups, failures: application.failures, mail: mail
        )
        var router = application.makeRouter()
        console.register(on: &router)
        self.router = router
        middleware = [ErrorRingMiddleware(ring: errors)] + application.middleware + [console.middleware]
    }
}

extension Configuration {
    /// Console cookies are `Secure` when the server's public URL (PUBLIC_URL) is https: a
    /// browser then never sends them over plain HTTP.
    var consoleSecureCookies: Bool {
        mail.publicURL?.lowercased().hasPrefix("https://") ?? false
    }
}
