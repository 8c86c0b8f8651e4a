import Accounts
import HTTPServer

/// Slack's routes, for the composition root: the inbound endpoints Slack calls (anonymous:
/// the request's signature is the credential) and the administrators' `/v1/integrations/slack`.
package enum SlackRoutes {
    package static func registerInbound(on router: inout Router, slack: SlackService) {
        SlackInboundRoutes.register(on: &router, slack: slack)
    }

    package static func register(on router: inout Router, auth: AuthService, slack: SlackService) {
        SlackAdminRoutes.register(on: &router, auth: auth, slack: slack)
    }
}
