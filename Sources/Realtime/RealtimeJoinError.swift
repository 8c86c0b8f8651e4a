/// Why a join (or a message on a channel) is refused. The reason goes to the client as
/// `{"status":"error","response":{"reason":"<Code>: <message>"}}`, Supabase's shape.
enum RealtimeJoinError: Error, Equatable {
    /// A `config` the server cannot serve (bad table, filter, event, schema).
    case invalid(String)
    /// No usable access token: only signed-in users may join.
    case unauthorized(String)
    /// A private topic the caller may not join (or no rule covers): the topic's name.
    case forbidden(String)
    /// Broadcast on a public topic while the operator allows only private ones.
    case privateOnly(String)
    /// A limit (channels per connection, subscriptions per join).
    case limit(String)
    /// The database could not arm the subscription.
    case unavailable(String)
    /// The replay cursor is not one this server wrote.
    case invalidCursor(String)
    /// The replay cursor is too old (history pruned) or too much changed since: catch up
    /// with `/v1/sync` first.
    case resyncRequired(String)

    var reason: String {
        switch self {
        case .invalid(let message): "InvalidJoinPayload: \(message)"
        case .unauthorized(let message): "InvalidJWTToken: \(message)"
        case .forbidden(let topic): "Unauthorized: You do not have permissions to read from this Channel topic: \(topic)"
        case .privateOnly(let message): "PrivateOnly: \(message)"
        case .limit(let message): "ChannelRateLimitReached: \(message)"
        case .unavailable(let message): "UnableToConnectToProject: \(message)"
        case .invalidCursor(let message): "InvalidCursor: \(message)"
        case .resyncRequired(let message): "ResyncRequired: \(message)"
        }
    }
}
