import Foundation
import RouteKit

/// Who is asking, as the account service needs to know it: from where, with what, as whom.
/// Routes build it from the request (`ClientInfo(request, context)`), so the services never
/// see HTTP and the console, GoTrue and `/v1` hand them the same facts.
package struct ClientInfo: Sendable {
    /// The client's IP (a trusted proxy's report, else the peer's): what the throttles count by.
    package var address: String
    /// The `User-Agent`, cut to 512 characters, recorded with a new session.
    package var userAgent: String?
    /// The device token of the `dispatch_device` cookie, when a well-formed one was sent.
    package var deviceToken: String?
    /// The authenticated caller, when there is one.
    package var principal: Principal?

    package init(address: String, userAgent: String? = nil, deviceToken: String? = nil, principal: Principal? = nil) {
        self.address = address
        self.userAgent = userAgent.map { String($0.prefix(512)) }
        self.deviceToken = deviceToken
        self.principal = principal
    }
}
