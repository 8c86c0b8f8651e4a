import Foundation

/// How the Slack integration talks to Slack (SLACK_HOOKS_BASE_URL) and paces itself.
package struct SlackSettings: Sendable {
    /// Slack's incoming webhooks and `response_url`s live under this base; any other URL is
    /// refused on save and never posted to, so a stored URL cannot turn the server into a
    /// client of an internal address. Tests point it at a fake on 127.0.0.1.
    package var hooksBaseURL: String
    /// Between two posts to the incoming webhook (Slack accepts about one per second).
    package var pace: Duration = .seconds(1)
    /// How long a claim holds a message: longer than the transport's timeout.
    package var lease: Duration = .seconds(60)
    /// How often the sender looks for due messages and new history.
    package var pollInterval: Duration = .seconds(1)
    package var maxAttempts = 10
    package var initialRetry: Duration = .seconds(5)
    package var maxRetry: Duration = .seconds(3600)
    /// How far back each history scan reads: longer than the longest write transaction
    /// (WRITE_TRANSACTION_TIMEOUT), so no committed row falls between two scans.
    package var lookBack: Duration = .seconds(35)
    /// Sent and dead messages and request receipts are deleted after this long.
    package var retention: Duration = .seconds(7 * 86_400)
    package var connectTimeout: Duration = .seconds(5)
    package var timeout: Duration = .seconds(10)

    package static let defaultHooksBaseURL = "https://hooks.slack.com/"

    package init(hooksBaseURL: String = SlackSettings.defaultHooksBaseURL) {
        self.hooksBaseURL = hooksBaseURL
    }

    /// Whether `url` is under the hooks base (scheme, host and port included, then a path).
    package func allows(_ url: String) -> Bool {
        url.hasPrefix(hooksBaseURL) && url.count > hooksBaseURL.count && url.count <= 2000
            && !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false })
    }
}
