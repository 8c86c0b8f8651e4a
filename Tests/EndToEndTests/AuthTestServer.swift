import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Backups
import Console
import Credentials
import Domain
import Foundation
import Glibc
import HTTP1
import HTTPServer
import Logging
import Postgres
import Store
import TestSupport
import Webhooks

/// The application with authentication on a fresh database and an ephemeral port, plus one
/// seeded admin. Passwords use cheap Argon2id parameters: the tests exercise the flow, not the KDF.
final class AuthTestServer {
    static let adminEmail = "admin@example.com"
    static let password = "correct horse battery"
    static let cheapHasher = PasswordHasher(parameters: .init(memoryKiB: 64, iterations: 1, lanes: 1))
    /// The `apikey` of the Supabase-compatible routes (`SupabaseGateway`).
    static let publishableKey = "sb_publishable_e2e-test-key-0123456789"

    let database: TestDatabase
    let auth: AuthService
    /// The sync service the application built (device activity, the change stream).
    let sync: SyncService?
    private let realtime: RealtimeService?
    /// Webhook endpoints (`/v1/webhooks`); the tests build senders on it (`WebhookWorld`).
    let webhooks: WebhookService?
    /// The server secret webhook secrets are sealed under.
    static let serverSecret = String(repeating: "k", count: 32)
    let server: HTTPServer
    let admin: User
    /// The operator's console on the same server (`withConsole`), as dispatchd wires it.
    private(set) var console: ConsoleApplication?
    /// The console's heartbeat (not started: tests beat it by hand).
    private(set) var heartbeat: InstanceHeartbeat?

    init(throttleLimits: LoginThrottle.Limits = LoginThrottle.Limits(), accessTokenTTL: Duration = .seconds(900),
         listPaging: ListPaging = ListPaging(),
         refreshReuseGrace: Duration = SessionStore.defaultReuseGrace, trustedProxies: String = "",
         kdfConcurrency: Int = 2, workerCount: Int = 4, withConsole: Bool = false, secureConsoleCookies: Bool = false,
         emailSettings: EmailAuthSettings? = nil, realtimePublicBroadcast: Bool = false,
         consoleMail: ConsoleMailSetup? = nil, consoleBackups: BackupService? = nil,
         consoleBackupSummary: ConsoleBackupSummary = ConsoleBackupSummary(),
         adjustRouter: (inout Router) -> Void = { _ in },
         configureApplication: (inout APIApplication) throws -> Void = { _ in }) throws {
        database = try TestDatabase.create(poolSize: 6)
        auth = try AuthService(pool: database.pool, jwtSecret: String(repeating: "k", count: 32), hasher: Self.cheapHasher,
                               accessTokenTTL: accessTokenTTL, throttleLimits: throttleLimits, refreshReuseGrace: refreshReuseGrace,
                               kdfConcurrency: kdfConcurrency, emailSettings: emailSettings, secureCookies: secureConsoleCookies,
                               logger: Logger(label: "auth-e2e", factory: { _ in SwiftLogNoOpLogHandler() }))
        try auth.start()
        admin = try auth.users.create(email: Self.adminEmail, name: "Ada Admin", userType: .admin,
                                      passwordHash: try Self.cheapHasher.hash(Self.password))
        var application = APIApplication(
            readiness: DatabaseReadinessCheck(pool: database.pool, migrator: Migrator(directoryPath: ProjectPaths.migrations)),
            auth: auth, listPaging: listPaging, trustedProxies: try TrustedProxies(parsing: trustedProxies),
            publishableKey: Self.publishableKey, realtimePublicBroadcast: realtimePublicBroadcast,
            serverSecret: Self.serverSecret
        )
        try configureApplication(&application)
        webhooks = application.webhooks
        sync = application.sync
        realtime = application.realtime
        var router = application.makeRouter()
        var middleware = application.middleware
        if withConsole {
            let heartbeat = InstanceHeartbeat(version: "test", address: "127.0.0.1:test", interval: .seconds(15), pool: database.pool,
                                              metrics: application.metrics,
                                              logger: Logger(label: "heartbeat", factory: { _ in SwiftLogNoOpLogHandler() }))
            self.heartbeat = heartbeat
            let console = try ConsoleApplication(
                auth: auth,
                server: ConsoleServerFacts(version: "test", pool: database.pool,
                                           migrator: Migrator(directoryPath: ProjectPaths.migrations),
                                           heartbeat: heartbeat, errors: application.failures, backups: { consoleBackupSummary }),
                secureCookies: secureConsoleCookies, webhooks: application.webhooks, slack: application.slack,
                backups: consoleBackups, failures: application.failures, mail: consoleMail)
            console.register(on: &router)
            middleware = middleware + [console.middleware]
            self.console = console
        }
        adjustRouter(&router)
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0,
                                                   limits: HTTPParserLimits(maxBodyBytes: APIApplication.maxRequestBodyBytes),
                                                   workerCount: workerCount),
            responder: router, middleware: middleware,
            logger: Logger(label: "auth-e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try server.start()
    }

    deinit {
        server.shutdown(deadline: .seconds(2))
        server.waitUntilStopped()
        // Before the database goes: a change stream or broadcast listener left running would
        // retry against a dropped database for the rest of the run.
        realtime?.stop()
        sync?.stop()
        auth.stop()
    }

    var client: TestHTTPClient { TestHTTPClient(port: server.boundPort) }

    func request(_ method: String, _ path: String, token: String? = nil, json: [String: Any]? = nil,
                 body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        var bytes = body ?? []
        if let json {
            bytes = Array(try JSONSerialization.data(withJSONObject: json))
            if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        }
        return try client.perform(method: method, path: path, headers: headers, body: bytes)
    }

    struct Tokens {
        var access: String
        var refresh: String
    }

    func login(_ email: String = AuthTestServer.adminEmail, _ password: String = AuthTestServer.password) throws -> Tokens {
        let response = try request("POST", "/v1/auth/login", json: ["email": email, "password": password])
        guard response.status == 200, let json = response.json,
              let access = json["access_token"] as? String, let refresh = json["refresh_token"] as? String
        else { throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self)) }
        return Tokens(access: access, refresh: refresh)
    }

    /// Creates a realtor through the API (as the admin) and returns its id.
    func createRealtor(_ email: String, adminToken: String, type: String = "realtor") throws -> String {
        let response = try request("POST", "/v1/users", token: adminToken,
                                   json: ["email": email, "name": "Rita Realtor", "user_type": type, "password": Self.password])
        guard response.status == 201, let id = response.json?["id"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return id
    }
}

enum AuthTestError: Error {
    case unexpected(Int, String)
}
