/// Where a row came from (contract §1): the app/API, or the Slack integration.
public enum CreatedVia: String, Sendable, CaseIterable {
    case dispatch, slack
}
