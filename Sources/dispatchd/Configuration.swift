import Foundation
import HTTPServer
import Logging
import Store

/// Everything `dispatchd` reads from its environment, validated once at start-up.
///
/// Command-line flags are applied as overrides of the same variables (see `ConfigurationOptions`),
/// so there is one parser, one set of error messages and one documented name per setting.
struct Configuration: Sendable {
    /// nil: run a private PostgreSQL under `dataDirectory` (development, first start).
    var databaseURL: String?
    /// DATABASE_DIRECT_URL: PostgreSQL itself, when DATABASE_URL goes through a transaction-mode
    /// pooler. LISTEN, migrations (session advisory lock) and the one-shot commands use it;
    /// its presence also tells the pool that DATABASE_URL is transaction-pooled.
    var databaseDirectURL: String?
    var host: String
    var port: Int
    /// nil only with the embedded database: a secret is then generated and kept in `dataDirectory`.
    var jwtSecret: String?
    /// PUBLISHABLE_KEY: the Supabase-compatible `apikey`; nil only with the embedded database
    /// (generated and kept in `dataDirectory`, like the JWT secret).
    var publishableKey: String?
    /// REFRESH_REUSE_GRACE (seconds; default 10): how long a replay of a just-rotated refresh
    /// token answers with the current session instead of counting as reuse.
    var refreshReuseGrace: Double
    /// Lifetime of access tokens (ACCESS_TOKEN_TTL, seconds; default 900).
    var accessTokenTTL: Double
    var databasePoolSize: Int
    var databasePoolTimeout: Double
    var databaseStatementTimeout: Double
    /// DB_STATEMENT_CACHE_SIZE: statements each connection keeps prepared (0: none).
    var databaseStatementCacheSize: Int
    /// SYNC_PAGE_MAX_BYTES: a /v1/sync page stops at about this many bytes (one larger row goes alone).
    var syncPageMaxBytes: Int
    var logLevel: Logger.Level
    var logFormat: LogFormat
    var dataDirectory: String
    var migrationsDirectory: String
    /// Reverse proxies whose `X-Forwarded-For` is believed (TRUSTED_PROXIES; default none).
    var trustedProxies: TrustedProxies
    /// Concurrent password hashes/verifications (KDF_CONCURRENCY; nil: half the cores, at least 1).
    var kdfConcurrency: Int?
    var http: HTTPLimits
    /// WebSocket limits and timers (`WS_*`, Configuration+WebSocket.swift).
    var webSocket: WebSocketLimits
    /// Byte budget of one /v1 list page (LIST_PAGE_MAX_BYTES; default 1 MiB).
    var listPageMaxBytes: Int
    /// WRITE_TRANSACTION_TIMEOUT: a write transaction older than this at COMMIT is rolled back
    /// (seconds; default 30). Bounds the /rest/v1 delta-polling overlap.
    var writeTransactionTimeout: Double
    /// CLIENT_CLOCK_SKEW: how far a phone's clock may run ahead of the database's and still
    /// lose nothing in /rest/v1 delta polls (seconds; default 60).
    var clientClockSkew: Double
    /// How often this process writes its heartbeat row and its minute's sample (InstanceHeartbeat).
    var heartbeatInterval: Double
    /// Outgoing mail and its links (SMTP_*, MAIL_*, PUBLIC_URL, AUTH_REDIRECT_URLS; Configuration+Mail.swift).
    var mail: MailSettings
    /// SLACK_HOOKS_BASE_URL: the only base Slack posts go to (Configuration+Slack.swift).
    var slackHooksBaseURL: String
    /// AUTH_EMAIL_*: sign-in codes and links, recovery, invitations (Configuration+EmailAuth.swift).
    var emailAuth: EmailAuthOptions
    /// Backup directory, retention and the daily schedule (Configuration+Backup.swift).
    var backup: BackupSettings
    /// Outgoing webhooks: the address guard's allow-list and the timeout (Configuration+Webhooks.swift).
    var webhooks = WebhookSettings()
    /// Silent push: the APNs key, topic and URL, the pacing (Configuration+Push.swift).
    var push = PushSettings()

    /// HTTP limits and timeouts; nil keeps the server's built-in default.
    struct HTTPLimits: Sendable {
        var maxConnections: Int?
        var listenBacklog: Int?
        var maxBodyBytes: Int?
        var maxHeaderBytes: Int?
        var maxRequestLineBytes: Int?
        var maxHeaderFields: Int?
        var headerTimeout: Double?
        var bodyTimeout: Double?
        var idleTimeout: Double?
        var writeTimeout: Double?
        var shutdownTimeout: Double?
        var workers: Int?
        var corsAllowedOrigins: [String]
    }

    static let minimumJWTSecretBytes = 32

    var usesEmbeddedDatabase: Bool { databaseURL == nil }
    /// DATABASE_URL reaches PostgreSQL through a transaction-mode pooler (see `databaseDirectURL`).
    var usesTransactionPooler: Bool { databaseDirectURL != nil }

    static func load(from environment: [String: String]) throws(ConfigurationError) -> Configuration {
        let reader = EnvironmentReader(environment)
        let databaseURL = reader.string(.databaseURL)
        if let databaseURL, !(databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://")) {
            throw ConfigurationError("DATABASE_URL must start with postgres:// or postgresql://")
        }
        let databaseDirectURL = reader.string(.databaseDirectURL)
        if let databaseDirectURL {
            guard databaseURL != nil else {
                throw ConfigurationError("DATABASE_DIRECT_URL needs DATABASE_URL (the pooler's address) to be set too")
            }
            guard databaseDirectURL.hasPrefix("postgres://") || databaseDirectURL.hasPrefix("postgresql://") else {
                throw ConfigurationError("DATABASE_DIRECT_URL must start with postgres:// or postgresql://")
            }
            // Named statements cannot follow a client across a transaction pooler's server sessions.
            if let cache = reader.string(.databaseStatementCacheSize), cache != "0" {
                throw ConfigurationError(
                    "DB_STATEMENT_CACHE_SIZE must be 0 (or unset) with DATABASE_DIRECT_URL: DATABASE_URL is then a transaction-mode pooler, which cannot keep prepared statements (got \"\(cache)\")"
                )
            }
        }
        let jwtSecret = reader.string(.jwtSecret)
        if let jwtSecret, jwtSecret.utf8.count < minimumJWTSecretBytes {
            throw ConfigurationError(
                "JWT_SECRET must be at least \(minimumJWTSecretBytes) bytes (got \(jwtSecret.utf8.count)); generate one with: openssl rand -base64 48"
            )
        }
        if databaseURL != nil, jwtSecret == nil {
            throw ConfigurationError(
                "JWT_SECRET is required when DATABASE_URL is set (at least \(minimumJWTSecretBytes) bytes; generate one with: openssl rand -base64 48)"
            )
        }
        let publishableKey = reader.string(.publishableKey)
        if let publishableKey, let problem = PublishableKeyStore.problem(with: publishableKey) {
            throw ConfigurationError("PUBLISHABLE_KEY \(problem)")
        }
        if databaseURL != nil, publishableKey == nil {
            throw ConfigurationError(
                "PUBLISHABLE_KEY is required when DATABASE_URL is set (at least \(PublishableKeyStore.minimumLength) characters; generate one with: echo sb_publishable_$(openssl rand -base64 24 | tr '+/' '-_' | tr -d '=')"
            )
        }
        let levelName = reader.string(.logLevel) ?? "info"
        guard let logLevel = Logger.Level(rawValue: levelName.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: "|")
            throw ConfigurationError("LOG_LEVEL must be one of \(names) (got \"\(levelName)\")")
        }
        let formatName = reader.string(.logFormat) ?? "text"
        guard let logFormat = LogFormat(rawValue: formatName.lowercased()) else {
            throw ConfigurationError("LOG_FORMAT must be text or json (got \"\(formatName)\")")
        }
        let dataDirectory = reader.string(.dataDirectory) ?? "./.data"
        let migrationsDirectory: String
        if let explicit = reader.string(.migrationsDirectory) {
            migrationsDirectory = explicit
        } else {
            migrationsDirectory = try MigrationsLocator.defaultDirectory()
        }
        let trustedProxies: TrustedProxies
        do {
            trustedProxies = try TrustedProxies(parsing: reader.string(.trustedProxies) ?? "")
        } catch {
            throw ConfigurationError(
                "TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges such as 10.0.0.0/8 (got \"\(error.text)\")"
            )
        }
        return Configuration(
            databaseURL: databaseURL,
            databaseDirectURL: databaseDirectURL,
            host: reader.string(.host) ?? "127.0.0.1",
            port: try reader.integer(.port, default: 8080, in: 0...65535),
            jwtSecret: jwtSecret,
            publishableKey: publishableKey,
            refreshReuseGrace: try reader.seconds(.refreshReuseGrace, default: 10),
            accessTokenTTL: try reader.seconds(.accessTokenTTL, default: 900),
            databasePoolSize: try reader.integer(.databasePoolSize, default: 10, in: 1...1000),
            databasePoolTimeout: try reader.seconds(.databasePoolTimeout, default: 5),
            databaseStatementTimeout: try reader.seconds(.databaseStatementTimeout, default: 30),
            databaseStatementCacheSize: databaseDirectURL == nil
                ? try reader.integer(.databaseStatementCacheSize, default: 256, in: 0...100_000) : 0,
            syncPageMaxBytes: try reader.integer(.syncPageMaxBytes, default: SyncFeed.defaultMaxPageBytes,
                                                 in: SyncFeed.minimumMaxPageBytes...(1 << 30)),
            logLevel: logLevel,
            logFormat: logFormat,
            dataDirectory: dataDirectory,
            migrationsDirectory: migrationsDirectory,
            trustedProxies: trustedProxies,
            kdfConcurrency: try reader.optionalInteger(.kdfConcurrency, in: 1...256),
            http: HTTPLimits(
                maxConnections: try reader.optionalInteger(.httpMaxConnections, in: 1...1_000_000),
                listenBacklog: try reader.optionalInteger(.listenBacklog, in: 1...1_048_576),
                maxBodyBytes: try reader.optionalInteger(.httpMaxBodyBytes, in: 1...(1 << 30)),
                maxHeaderBytes: try reader.optionalInteger(.httpMaxHeaderBytes, in: 256...(1 << 24)),
                maxRequestLineBytes: try reader.optionalInteger(.httpMaxRequestLineBytes, in: 64...(1 << 24)),
                maxHeaderFields: try reader.optionalInteger(.httpMaxHeaderFields, in: 1...10_000),
                headerTimeout: try reader.optionalSeconds(.httpHeaderTimeout),
                bodyTimeout: try reader.optionalSeconds(.httpBodyTimeout),
                idleTimeout: try reader.optionalSeconds(.httpIdleTimeout),
                writeTimeout: try reader.optionalSeconds(.httpWriteTimeout),
                shutdownTimeout: try reader.optionalSeconds(.shutdownTimeout),
                workers: try reader.optionalInteger(.httpWorkers, in: 1...4096),
                corsAllowedOrigins: (reader.string(.corsAllowedOrigins) ?? "")
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            ),
            webSocket: try WebSocketLimits.load(reader),
            // At least 4 KiB: below that the envelope alone would not fit.
            listPageMaxBytes: try reader.integer(.listPageMaxBytes, default: 1 << 20, in: 4096...(1 << 30)),
            writeTransactionTimeout: try reader.seconds(.writeTransactionTimeout, default: 30),
            clientClockSkew: try reader.seconds(.clientClockSkew, default: 60),
            heartbeatInterval: try reader.seconds(.heartbeatInterval, default: 15),
            mail: try MailSettings.load(reader),
            slackHooksBaseURL: try Self.slackHooksBaseURL(reader),
            emailAuth: try EmailAuthOptions.load(reader),
            backup: try BackupSettings.load(reader, dataDirectory: dataDirectory, embedded: databaseURL == nil),
            webhooks: try WebhookSettings.load(reader),
            push: try PushSettings.load(reader)
        )
    }
}
