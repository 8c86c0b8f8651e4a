import HTTPServer
import Mail
import Postgres

/// The hourly caps a request that sends mail meets, after the per-address interval
/// (`sendingMail`): per recipient address, per client address, then the global ceiling.
/// docs/operators/configuration.md has the settings, docs/app-developers/email-auth.md the
/// reasoning.
extension AuthService {
    /// Throws 429 (`over_email_send_rate_limit` on /auth/v1) with Retry-After when a cap is
    /// reached. `source`: the client address of an unauthenticated request (nil for a
    /// signed-in caller, already bound by the per-address caps). An administrator's invitation
    /// meets none of the hourly caps: it is an authenticated admin action, and the caps exist
    /// so that strangers cannot stop the mail, not to stop an office hiring.
    package func checkHourlyMailCaps(addresses: [String], source: String?, administrator: Bool,
                             on connection: PostgresConnection) throws {
        guard !administrator else { return }
        for address in addresses {
            if let wait = try MailRequestCounts.take(.address, address, limit: emailSettings.addressHourlyLimit, on: connection) {
                throw AuthService.mailRateLimited(Self.wholeSeconds(wait))
            }
        }
        if let source, let wait = try MailRequestCounts.take(.source, source, limit: emailSettings.sourceHourlyLimit, on: connection) {
            throw AuthService.mailRateLimited(Self.wholeSeconds(wait))
        }
        if try MailOutbox.queuedCount(within: .seconds(3600), on: connection) >= emailSettings.hourlyLimit {
            throw AuthService.mailRateLimited(max(1, Int(emailSettings.addressInterval.components.seconds)))
        }
    }

    /// A wait in whole seconds, rounded up (Retry-After).
    package static func wholeSeconds(_ wait: Duration) -> Int {
        max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
    }
}
