import Accounts
import HTTPServer
import Logging
import Mail
import Operations
import Postgres
import Realtime
import Resources
import ServiceKit
import RouteKit
import Store
import Supabase
import Slack
import Sync
import Webhooks
import Push

/// The HTTP application: every route family registered on one router, and the middleware
/// that wraps them. Each family lives in its own `…Routes.swift` and is added here.
package struct APIApplication: Sendable {
    package let readiness: any ReadinessCheck
    /// Authentication, users, API keys and avatars; nil serves the operations routes only.
    package let auth: AuthService?
    /// Request counts and latencies for `GET /metrics`; one per application (process).
    package let metrics: RequestMetrics
    /// Reported as `db_pool_connections`; defaults to the authentication service's pool.
    package let pool: PostgresPool?
    /// The sync feed and its long-poll waiters; present with authentication.
    package let sync: SyncService?
    /// Supabase Realtime over `/realtime/v1/websocket` (a second consumer of `sync`'s change stream).
    package let realtime: RealtimeService?
    /// The byte budget of list pages (`LIST_PAGE_MAX_BYTES`).
    package let listPaging: ListPaging
    /// Proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES); empty: none.
    package let trustedProxies: TrustedProxies
    /// How `/rest/v1` widens `updated_at=gt.` delta polls (WRITE_TRANSACTION_TIMEOUT, CLIENT_CLOCK_SKEW).
    package var restDelta = RestDeltaWindow(longestWrite: .seconds(30), clockSkew: .seconds(60))
    /// PUBLISHABLE_KEY: the `apikey` every Supabase-compatible request carries (`SupabaseGateway`).
    package let publishableKey: String?
    /// Webhook endpoints and deliveries (`/v1/webhooks`); present with authentication.
    package let webhooks: WebhookService?
    /// This instance's webhook sender, for its `webhook_*` metrics (set by `serve`).
    package var webhookSender: WebhookSender?
    /// Devices registered for silent pushes (`/v1/devices`); present with authentication.
    package let push: PushService?
    /// This instance's push sender, for its `push_*` metrics (set by `serve`).
    package var pushSender: PushSender?
    /// This instance's mail sender, for its `mail_*` metrics (set by `serve`).
    package var mailSender: MailSender?
    /// Slack, both ways (set by `serve`): its inbound and admin routes and its metrics.
    package var slack: SlackService?
    /// The scheduled backups' outcome for `/metrics` and `/readyz`; nil when none are scheduled.
    package var backups: BackupStatus?
    /// Whether PUBLIC_URL is set; unset, `ForwardedHeaderWarnings` warns about https proxies.
    package var publicURLIsSet = true
    /// Each signed-in caller's last failed requests on this instance (the console's person page).
    package let failures = FailureRing()

    /// The server's global body limit: avatar uploads need 5 MiB, Storage uploads 5 MiB plus a
    /// multipart envelope; each route enforces its own limit (JSON routes 1 MiB,
    /// `JSONRequestBody.maxBytes`).
    package static let maxRequestBodyBytes = SupabaseRoutes.maxRequestBytes

    package init(readiness: any ReadinessCheck, auth: AuthService? = nil, pool: PostgresPool? = nil,
                sync: SyncService? = nil, listPaging: ListPaging = ListPaging(),
                trustedProxies: TrustedProxies = TrustedProxies(), publishableKey: String? = nil,
                realtimePublicBroadcast: Bool = false, serverSecret: String? = nil) {
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
        webhooks = auth.flatMap { auth in serverSecret.map { WebhookService(pool: auth.pool, serverSecret: $0) } }
        push = auth.map { PushService(pool: $0.pool) }
    }

    /// What `GET /metrics` reports, in order: requests, the database pool, then each
    /// capability that counts something.
    var metricsSources: [any MetricsSource] {
        var sources: [any MetricsSource] = [metrics]
        if let pool { sources.append(DatabasePoolMetrics(pool: pool)) }
        if let auth { sources.append(auth) }
        if let sync { sources.append(sync) }
        if let mailSender { sources.append(mailSender) }
        if let slack { sources.append(slack) }
        if let webhookSender { sources.append(webhookSender) }
        if let pushSender { sources.append(pushSender) }
        if let backups { sources.append(backups) }
        return sources
    }

    /// Every route, in groups that declare who may call them and how their errors look: the
    /// anonymous groups hold the operations routes, sign-in, refresh and avatar downloads;
    /// everything else needs credentials (`AuthMiddleware` reads the requirement from the
    /// request's resolved route). The Supabase-compatible families answer in their own error
    /// style (`errorRenderer`), `/v1` and the operations routes in the contract's.
    package func makeRouter() -> Router {
        var router = Router()
        router.group(auth: .anonymous) { open in
            OperationsRoutes.register(on: &open, readiness: readiness, backups: backups, metrics: metricsSources)
            if let auth { AccountRoutes.registerPublic(on: &open, auth: auth) }
            // Slack's requests carry no user credentials: their signature is checked instead.
            if let slack { SlackRoutes.registerInbound(on: &open, slack: slack) }
        }
        // Users authenticate per channel (the join's access_token), not on the upgrade.
        if let realtime {
            router.group(auth: .anonymous, errorStyle: .realtime) { open in
                RealtimeRoutes.register(on: &open, realtime: realtime)
            }
        }
        guard let auth else { return router }
        router.group(auth: .required) { api in
            AccountRoutes.register(on: &api, auth: auth)
            ResourceRoutes.register(on: &api, auth: auth, paging: listPaging)
            if let sync { SyncRoutes.register(on: &api, auth: auth, sync: sync) }
            if let slack { SlackRoutes.register(on: &api, auth: auth, slack: slack) }
            if let webhooks { WebhookRoutes.register(on: &api, auth: auth, webhooks: webhooks) }
            if let push { PushRoutes.register(on: &api, push: push) }
        }
        SupabaseRoutes.register(on: &router, auth: auth, restDelta: restDelta)
        return router
    }

    /// Each wire family's error shape, by the style its route groups carry; the rest answer
    /// in the contract's. Registered for every style it serves, so work that answers later
    /// renders through it too (`RequestContext.renderError`).
    static let errorRenderer: APIErrorRenderer = {
        let families = SupabaseRoutes.errorRenderers.merging([.realtime: RealtimeRoutes.errorRenderer]) { first, _ in first }
        let renderer = APIErrorRenderer(families: families)
        for style in families.keys + [.contract] { ErrorRenderers.register(renderer, for: style) }
        return renderer
    }()

    /// Outermost first: find the real client address (and warn once about forwarded headers
    /// the server cannot use), log and count every request with its final status, gzip the
    /// final response (errors included, as rendered), render every error in the style of its
    /// route group (`errorRenderer`, the one place errors become HTTP); check the publishable
    /// key of the Supabase-compatible families (`SupabaseGateway`); then authenticate requests
    /// whose route requires it, and replay `/v1` writes sent again with the same
    /// `Idempotency-Key` (`IdempotencyMiddleware`). All of them read the route the server
    /// resolved once.
    package var middleware: [any Middleware] {
        let base: [any Middleware] = [
            ClientAddressMiddleware(trustedProxies: trustedProxies),
            ForwardedHeaderWarnings(trustedProxies: trustedProxies, publicURLIsSet: publicURLIsSet), LoggingMiddleware(),
            MetricsMiddleware(metrics: metrics),
            CompressionMiddleware(), FailureRingMiddleware(ring: failures), ErrorMiddleware(renderer: Self.errorRenderer),
            SupabaseGateway(publishableKey: publishableKey),
        ]
        guard let auth else { return base }
        var seen: (@Sendable (Principal) -> Void)?
        if let devices = sync?.devices { seen = { devices.seen($0) } }  // memory only; written in batches
        return base + [AuthMiddleware(auth: auth, onAuthenticated: seen),
                       IdempotencyMiddleware(store: IdempotencyKeyStore(pool: auth.pool))]
    }
}
