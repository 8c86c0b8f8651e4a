import API
import Accounts
import Backups
import HTTPServer
import Postgres
import RouteKit
import Slack
import Webhooks

/// The operator's console, served by dispatchd under `/console`. `register` adds
/// every console route to the application's router in one group: anonymous as far as the
/// API's bearer authentication is concerned (the console has its own cookie sessions,
/// `ConsoleSite.viewer`) and answering errors as pages (`ErrorStyle.console`). `middleware`
/// goes innermost, after the application's own.
package struct ConsoleApplication: Sendable {
    package let site: ConsoleSite
    package let server: ConsoleServerFacts

    package init(auth: AuthService, server: ConsoleServerFacts, secureCookies: Bool,
                 webhooks: WebhookService? = nil, slack: SlackService? = nil, backups: BackupService? = nil,
                 failures: FailureRing? = nil, mail: ConsoleMailSetup? = nil) throws {
        site = ConsoleSite(auth: auth, renderer: try ConsoleRenderer(), secureCookies: secureCookies, webhooks: webhooks, slack: slack,
                           backups: backups, failures: failures, mail: mail)
        self.server = server
    }

    package func register(on router: inout Router) {
        router.group(auth: .anonymous, errorStyle: .console) { console in
            ConsoleAssetRoutes.register(on: &console)
            ConsoleSignInRoutes.register(on: &console, site: site)
            ConsoleOverviewRoutes.register(on: &console, site: site, facts: server)
            ConsolePeopleRoutes.register(on: &console, site: site)
            ConsolePersonRoutes.register(on: &console, site: site)
            ConsoleServerRoutes.register(on: &console, site: site, facts: server)
            ConsoleAuditRoutes.register(on: &console, site: site)
            ConsoleWorkRoutes.register(on: &console, site: site)
            ConsoleWorkActions.register(on: &console, site: site)
            ConsoleAccessRoutes.register(on: &console, site: site)
            ConsoleSyncRoutes.register(on: &console, site: site)
            ConsoleOffboardRoutes.register(on: &console, site: site)
            ConsoleIntegrationRoutes.register(on: &console, site: site)
            ConsoleSlack.register(on: &console, site: site)
            ConsoleAccountPages.register(on: &console, site: site)
            ConsoleBackupRoutes.register(on: &console, site: site)
            ConsoleMailRoutes.register(on: &console, site: site)
            // Unknown console paths answer a page, not the API's JSON 404.
            console.get("/console/{path...}") { _, _ in throw ConsoleError.notFound("This console page") }
        }
    }

    package var middleware: ConsoleMiddleware { ConsoleMiddleware(site: site) }
}
