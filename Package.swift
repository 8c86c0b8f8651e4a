// swift-tools-version:6.0
import PackageDescription

let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
/// What every capability module builds on: the server, the database, the rules, the kits.
let capability: [Target.Dependency] = [
    "HTTPServer", "HTTP1", "JSON", "Postgres", "Domain", "Store", "ServiceKit", "RouteKit", logging,
]

let package = Package(
    name: "dispatch-server",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dispatchd", targets: ["dispatchd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Server-rendered HTML: escapes < > & " ', no dependencies (the console's and the mail's templates).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // System libraries (apt: libpq-dev, libssl-dev, zlib1g-dev).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // gzip for responses (Accept-Encoding).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // Argon2id password hashes (apt: libargon2-dev): the reference implementation by its designers.
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // SMTP for outgoing mail (apt: libcurl4-openssl-dev): libcurl speaks SMTP, STARTTLS and AUTH.
        .systemLibrary(name: "CLibCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // epoll, eventfd, accept4, pipe2: Linux calls the Glibc module does not export.
        .systemLibrary(name: "CLinuxSys"),

        // Pure HTTP/1.1: parser, response encoder, types. No sockets.
        .target(name: "HTTP1"),
        // JSON values and the strict body check (UTF-8 only, no duplicate keys): no I/O.
        .target(name: "JSON"),
        // Sockets, epoll event loop, connections, worker pool, router, middleware.
        // COpenSSL: SHA-1 for the WebSocket handshake's Sec-WebSocket-Accept.
        .target(name: "HTTPServer", dependencies: ["HTTP1", "JSON", "CLinuxSys", "CZlib", "COpenSSL", logging]),
        // libpq wrapper: connection, query, rows, errors, pool, LISTEN/NOTIFY, migrator.
        .target(name: "Postgres", dependencies: ["CLibPQ", "CLinuxSys", logging]),
        // Runs a private PostgreSQL cluster (initdb + pg_ctl) for `serve` without DATABASE_URL and for tests.
        .target(name: "EmbeddedPostgres", dependencies: ["CLinuxSys", logging]),
        // Password hashing, random tokens: OpenSSL- and libargon2-backed primitives (never hand-rolled crypto).
        .target(name: "Credentials", dependencies: ["COpenSSL", "CArgon2"]),
        // Pure domain types and validation rules (no I/O).
        .target(name: "Domain"),
        // SQL per aggregate (users, sessions, API keys, avatars, login throttle).
        .target(name: "Store", dependencies: ["Postgres", "Domain", "Credentials"]),
        // Outgoing mail: kinds, templates (Mustache), the outbox table, RFC 5322 messages, transports.
        .target(name: "Mail", dependencies: ["Postgres", "Credentials", "CLibCurl", "ServiceKit", logging,
                                             .product(name: "Mustache", package: "swift-mustache")]),
        // Background work every engine shares: one thread's lifecycle, periodic jobs, bounded
        // parallel reads, and the Prometheus text each capability's metrics are written in.
        .target(name: "ServiceKit", dependencies: ["Postgres", logging]),
        // libcurl POSTs to peers: webhook receivers and Slack (with a connect-time address guard), and
        // the push providers on kept connections.
        .target(name: "OutboundHTTP", dependencies: ["CLibCurl", "Domain"]),
        // Request and response helpers every route family shares: strict JSON bodies, JSON
        // output, the caller (`Principal`), database → domain errors, and the one error renderer.
        .target(name: "RouteKit", dependencies: ["HTTPServer", "HTTP1", "JSON", "Postgres", "Domain", "Store", logging]),
        // Accounts: sessions, sign-in, passwords, e-mail flows, API keys, users, avatars.
        .target(name: "Accounts", dependencies: capability + [
            "Credentials", "Mail", .product(name: "Mustache", package: "swift-mustache"),
        ]),
        // Resources: the `/v1` rows and claims, and the writer push and `/rest/v1` share.
        .target(name: "Resources", dependencies: capability + ["Accounts"]),
        // Sync: the change stream, long-poll waiters, push, device activity.
        .target(name: "Sync", dependencies: capability + ["Accounts", "Resources"]),
        // Slack, both ways: signed slash commands and shortcuts create tasks; chosen events are
        // posted to an incoming webhook from the Slack outbox (libcurl).
        .target(name: "Slack", dependencies: capability + ["Accounts", "Resources", "Mail", "Credentials", "OutboundHTTP"]),
        // Supabase Realtime over a WebSocket: a second consumer of Sync's change stream.
        .target(name: "Realtime", dependencies: capability + ["Accounts", "Sync", "Credentials"]),
        // The Supabase-compatible gateway and its wire adapters: GoTrue, PostgREST, Storage.
        .target(name: "Supabase", dependencies: capability + ["Accounts", "Resources", "Credentials"]),
        // Webhooks: endpoints admins register, the durable delivery outbox, the signing sender
        // (libcurl, SSRF-guarded at connect time).
        .target(name: "Webhooks", dependencies: capability + ["Accounts", "Mail", "Credentials", "OutboundHTTP"]),
        // Push: devices phones register, the coalesced wake-up outbox filled from Sync's change
        // stream, and its sender (APNs over HTTP/2 through libcurl, ES256 provider tokens).
        .target(name: "Push", dependencies: capability + ["Accounts", "Sync", "Credentials", "OutboundHTTP"]),
        // Operations: readiness, metrics, the backups' status.
        .target(name: "Operations", dependencies: capability),
        // Backups: the signed backup file, verify and restore (pg_dump, pg_restore), the daily
        // schedule and the record of every run, for the commands and the console alike.
        .target(name: "Backups", dependencies: ["Postgres", "EmbeddedPostgres", "Credentials", "Store", "ServiceKit", "Operations", logging]),
        // The composition root: builds the services, registers the route groups with their error
        // style, and orders the middleware.
        .target(name: "API", dependencies: capability + [
            "Accounts", "Resources", "Sync", "Realtime", "Supabase", "Operations", "Mail", "Slack", "Webhooks", "Push",
        ]),
        // The operator's console under /console: server-rendered pages, cookie sessions, CSRF.
        // Templates and assets are compiled in (Sources/Console/Generated/, from console/).
        .target(name: "Console", dependencies: [
            "API", "Accounts", "Sync", "Operations", "Webhooks", "Slack", "Backups", "Mail", "RouteKit", "ServiceKit",
            "HTTPServer", "HTTP1", "JSON", "Postgres", "Store", "Domain", "Credentials", logging,
            .product(name: "Mustache", package: "swift-mustache"),
        ]),
        // The executable: CLI, configuration, wiring.
        .executableTarget(name: "dispatchd", dependencies: [
            "API", "Accounts", "Sync", "Realtime", "Operations", "RouteKit", "ServiceKit", "Console", "Backups",
            "HTTPServer", "JSON", "Postgres", "EmbeddedPostgres", "Credentials", "Store", "Mail", "Slack", "Webhooks", "Push", logging,
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Shared test support: the throw-away PostgreSQL cluster, per-test databases, HTTP client helpers.
        .target(name: "TestSupport", dependencies: ["Postgres", "EmbeddedPostgres", "HTTP1", logging], path: "Tests/TestSupport"),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTP1", "JSON", "TestSupport"]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials"]),
        .testTarget(name: "DomainTests", dependencies: ["Domain"]),
        // Mail against a real SMTP server (aiosmtpd, Tests/MailTests/smtp-capture.py).
        .testTarget(name: "MailTests", dependencies: [
            "Mail", "API", "Accounts", "Resources", "Sync", "Realtime", "Supabase", "Operations", "RouteKit", "ServiceKit",
            "JSON", "Postgres", "TestSupport",
        ]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "EmbeddedPostgres", "TestSupport"]),
        // dispatchd: built before the tests run, which start the binary (CommandLineTests).
        .testTarget(name: "EndToEndTests", dependencies: [
            "API", "Accounts", "Resources", "Sync", "Realtime", "Supabase", "Operations", "RouteKit", "ServiceKit", "Console", "HTTPServer", "HTTP1", "JSON", "Postgres", "EmbeddedPostgres", "TestSupport", "dispatchd",
            "Slack", "Webhooks", "Push", "Mail", "Store", "Domain", "Credentials", "Backups"]),
    ]
)
