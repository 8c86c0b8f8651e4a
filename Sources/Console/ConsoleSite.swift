import API
import Accounts
import Backups
import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Slack
import RouteKit
import Store
import Webhooks

/// What every console route family shares: the API's authentication service and stores, the
/// renderer, the console's own stores, and the two ways a handler answers:
/// - `page`: a GET that shows something to a signed-in administrator;
/// - `action`: a form POST, refused with 403 before anything runs unless it carries the
///   session's CSRF token, answered with a redirect (Post/Redirect/Get) or a page.
/// Everything a handler throws is rendered as a page by `ConsoleMiddleware`.
package struct ConsoleSite: Sendable {
    package let auth: AuthService
    package let renderer: ConsoleRenderer
    package let sessions: ConsoleSessionStore
    package let audit: ConsoleAuditStore
    /// The integrations the server runs with (nil: none, and their pages say so).
    package let webhooks: WebhookService?
    package let slack: SlackService?
    /// The backup service (the Backups page), each caller's recent failures (the person
    /// page), and outgoing mail (the Mail page); nil where the server runs without them.
    package let backups: BackupService?
    package let failures: FailureRing?
    package let mail: ConsoleMailSetup?
    let cookies: ConsoleCookies

    /// How long a console sign-in lasts; the cookie and the row expire together.
    package static let sessionLifetime: TimeInterval = 12 * 3600

    package init(auth: AuthService, renderer: ConsoleRenderer, secureCookies: Bool,
                 webhooks: WebhookService? = nil, slack: SlackService? = nil, backups: BackupService? = nil,
                 failures: FailureRing? = nil, mail: ConsoleMailSetup? = nil) {
        self.auth = auth
        self.backups = backups
        self.failures = failures
        self.mail = mail
        self.webhooks = webhooks
        self.slack = slack
        self.renderer = renderer
        sessions = ConsoleSessionStore(pool: auth.pool)
        audit = ConsoleAuditStore(pool: auth.pool)
        cookies = ConsoleCookies(secure: secureCookies)
    }

    static let seeOther = HTTPStatus(code: 303, reason: "See Other")

    /// The signed-in administrator, or `signInRequired` / `notAdmin`. An account that lost its
    /// admin role or was deactivated mid-session has its console session ended here.
    package func viewer(_ request: HTTPRequest) throws -> ConsoleViewer {
        guard let token = ConsoleCookies.values(request)[ConsoleCookies.session], !token.isEmpty,
              let live = try sessions.find(tokenHash: SHA256.hex(token)),
              let user = try auth.users.find(id: live.userID), user.isActive
        else { throw ConsoleError.signInRequired }
        guard user.isAdmin else {
            try auth.endSession(live.sessionID, reason: .logout)
            throw ConsoleError.notAdmin(name: user.name)
        }
        return ConsoleViewer(user: user, sessionID: live.sessionID, csrfToken: live.csrfToken)
    }

    /// A page for a signed-in administrator; `?done=code` shows that action's notice.
    package func page(_ request: HTTPRequest, _ context: RequestContext,
                     _ build: (ConsoleViewer) throws -> ConsolePage) throws -> HandlerReply {
        let viewer = try viewer(request)
        let page = try build(viewer)
        return .response(renderer.response(page, viewer: viewer, notice: ConsoleNotice.text(context.query["done"])))
    }

    /// A form action for a signed-in administrator: session, then CSRF, then `perform`.
    package func action(_ request: HTTPRequest, _ context: RequestContext,
                       _ perform: (ConsoleViewer, ConsoleForm) throws -> ConsoleOutcome) throws -> HandlerReply {
        let viewer = try viewer(request)
        let form = try ConsoleForm(request)
        try form.requireCSRF(viewer.csrfToken)
        return .response(respond(try perform(viewer, form), viewer: viewer))
    }

    func respond(_ outcome: ConsoleOutcome, viewer: ConsoleViewer?) -> HTTPResponse {
        switch outcome {
        case .redirect(let location): redirect(location)
        case .page(let page): renderer.response(page, viewer: viewer)
        }
    }

    func redirect(_ location: String, setCookies: [String] = []) -> HTTPResponse {
        var headers: HTTPHeaders = ["Location": location, "Cache-Control": "no-store"]
        for cookie in setCookies { headers.add(name: "Set-Cookie", value: cookie) }
        return HTTPResponse(status: Self.seeOther, headers: headers)
    }

    /// Writes the audit row of a console action (after the action succeeded).
    package func record(_ viewer: ConsoleViewer, action: String, targetType: String, targetID: String,
                       summary: String) throws {
        try audit.record(actorID: viewer.user.id, actorEmail: viewer.user.email, action: action,
                         targetType: targetType, targetID: targetID, summary: summary)
    }
}
