import Slack

extension Configuration {
    /// SLACK_HOOKS_BASE_URL: an http(s) URL ending in `/` (so `https://hooks.slack.com` cannot
    /// be extended to `https://hooks.slack.com.example`). Anything but Slack's own base is for
    /// tests and proxies an operator runs.
    static func slackHooksBaseURL(_ reader: EnvironmentReader) throws(ConfigurationError) -> String {
        guard let text = reader.string(.slackHooksBaseURL) else { return SlackSettings.defaultHooksBaseURL }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), text.hasSuffix("/"),
              text.split(separator: "/", omittingEmptySubsequences: true).count >= 2,
              !text.contains(where: { $0.isWhitespace }) else {
            throw ConfigurationError("SLACK_HOOKS_BASE_URL must be an http(s) URL ending in /, e.g. https://hooks.slack.com/ (got \"\(text)\")")
        }
        return text
    }
}
