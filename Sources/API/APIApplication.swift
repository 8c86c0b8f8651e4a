import HTTPServer
import Logging
import Postgres
import Store

/// The HTTP application: every route family registered on one router, and the middleware
/// that wraps them. Each family lives in its own `…Routes.swift` and is added here.
public struct APIApplication: Sendable {
    public let readiness: any ReadinessCheck
    /// Authentication, users, API keys and avatars; nil serves the operations routes only.
    public let auth: AuthService?
    /// Request counts and latencies for `GET /metrics`; one per application (process).
    public let metrics: RequestMetrics
    /// Reported as `db_pool_connections`; defaults to the authentication service's pool.
    public let pool: PostgresPool?
    /// The sync feed and its long-poll waiters; present with authentication.
    public let sync: SyncService?
    /// Supabase Realtime over `/realtime/v1/websocket` (a second consumer of `sync`'s change stream).
    public let realtime: RealtimeService?
    /// The byte budget of list pages (`LIST_PAGE_MAX_BYTES`).
    public let listPaging: ListPaging
    /// Proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES); empty: none.
    public let trustedProxies: TrustedProxies
    /// How `/rest/v1` widens `updated_at=gt.` delta polls (WRITE_TRANSACTION_TIMEOUT, CLIENT_CLOCK_SKEW).
    public var restDelta = RestDeltaWindow(longestWrite: .seconds(30), clockSkew: .seconds(60))
    /// PUBLISHABLE_KEY: the `apikey` every Supabase-compatible request carries (`SupabaseGateway`).
    public let publishableKey: String?
    /// This instance's mail sender, for its `mail_*` metrics (set by `serve`).
    public var mailSender: MailSender?
    /// The scheduled backups' outcome for `/metrics` and `/readyz`; nil when none are scheduled.
    public var backups: BackupStatus?
    /// Whether PUBLIC_URL is set; unset, `ForwardedHeaderWarnings` warns about https proxies.
    public var publicURLIsSet = true

    /// The server's global body limit: avatar uploads need 5 MiB, Storage uploads 5 MiB plus a
    /// multipart envelope; each route enforces its own limit (JSON routes 1 MiB,
    /// `JSONRequestBody.maxBytes`).
    public static let maxRequestBodyBytes = StorageUpload.maxRequestBytes

    public init(readiness: any ReadinessCheck, auth: AuthService? = nil, pool: PostgresPool? = nil,
                sync: SyncService? = nil, listPaging: ListPaging = ListPaging(),
                trustedProxies: TrustedProxies = TrustedProxies(), publishableKey: String? = nil,
                realtimePublicBroadcast: Bool = false) {
        self.readiness = readiness
        self.publishableKey = publishableKey
        self.trustedProxies = trustedProxies
        self.auth = auth
        self.metrics = RequestMetrics()
        self.pool = pool ?? auth?.pool
        let sync = sync ?? auth.map { SyncService(pool: $0.pool) }
        self.sync = sync
        realtime = auth.flatMap { auth in sync.map { RealtimeService(auth: auth, sync: $0, publicBroadcast: realtimePublicBroadcast) } }
        self.listPaging = listPaging
    }

    /// Every route, in groups that declare who may call them: the anonymous group holds the
    /// operations routes, sign-in, refresh and avatar downloads; everything else needs
    /// credentials (`AuthMiddleware` reads the requirement from the request's resolved route).
    public func makeRouter() -> Router {
        var router = Router()
        router.group(auth: .anonymous) { open in
            OperationsRoutes.register(on: &open, readiness: readiness, backups: backups)
            MetricsRoutes.register(on: &open, metrics: metrics, pool: pool, auth: auth, sync: sync,
                                   mail: mailSender, backups: backups)
            if let auth {
                AuthRoutes.registerSignIn(on: &open, auth: auth)
                AvatarRoutes.registerDownload(on: &open, auth: auth)
                GoTrueRoutes.registerSignIn(on: &open, auth: auth)
                GoTrueEmailRoutes.registerPublic(on: &open, auth: auth)
                EmailAuthRoutes.registerPublic(on: &open, auth: auth)
                StorageRoutes.registerPublic(on: &open, auth: auth)
            }
            // Users authenticate per channel (the join's access_token), not on the upgrade.
            if let realtime { RealtimeRoutes.register(on: &open, realtime: realtime) }
        }
        guard let auth else { return router }
        router.group(auth: .required) { api in
            AuthRoutes.register(on: &api, auth: auth)
            UserRoutes.register(on: &api, auth: auth)
            APIKeyRoutes.register(on: &api, auth: auth)
            AvatarRoutes.register(on: &api, auth: auth)
            ListingRoutes.register(on: &api, auth: auth, paging: listPaging)
            WorkItemRoutes.register(on: &api, auth: auth, paging: listPaging)
            ClaimRoutes.register(on: &api, auth: auth)
            HistoryRoutes.register(on: &api, auth: auth, paging: listPaging)
            NoteRoutes.register(on: &api, auth: auth, paging: listPaging)
            SubtaskRoutes.register(on: &api, auth: auth, paging: listPaging)
            if let sync { SyncRoutes.register(on: &api, auth: auth, sync: sync) }
            SyncPushRoutes.register(on: &api, auth: auth, log: MutationLog(pool: auth.pool))
            RestReadRoutes.register(on: &api, auth: auth, store: RestReadStore(pool: auth.pool), delta: restDelta)
            RestWriteRoutes.register(on: &api, auth: auth)
            GoTrueRoutes.register(on: &api, auth: auth)
            GoTrueEmailRoutes.registerAuthenticated(on: &api, auth: auth)
            EmailAuthRoutes.register(on: &api, auth: auth)
            RestRPCRoutes.register(on: &api, auth: auth)
            StorageRoutes.register(on: &api, auth: auth)
        }
        return router
    }

    /// Outermost first: find the real client address (and warn once about forwarded headers
    /// the server cannot use), log and count every request with its
    /// final status, gzip the final response (errors included, as rendered), render every
    /// error in the style of its route group (`APIErrorRenderer`, the one place for `/v1`);
    /// check the publishable key of the Supabase-compatible families and render their errors
    /// in their wire shape (`SupabaseGateway`); then authenticate requests whose route
    /// requires it, and replay `/v1` writes sent again with the same `Idempotency-Key`
    /// (`IdempotencyMiddleware`). All of them read the route the server resolved once.
    public var middleware: [any Middleware] {
        let base: [any Middleware] = [
            ClientAddressMiddleware(trustedProxies: trustedProxies),
            ForwardedHeaderWarnings(trustedProxies: trustedProxies, publicURLIsSet: publicURLIsSet), LoggingMiddleware(),
            MetricsMiddleware(metrics: metrics),
            CompressionMiddleware(), ErrorMiddleware(renderer: APIErrorRenderer()),
            SupabaseGateway(publishableKey: publishableKey),
        ]
        guard let auth else { return base }
        return base + [AuthMiddleware(auth: auth), IdempotencyMiddleware(store: IdempotencyKeyStore(pool: auth.pool))]
    }
}
