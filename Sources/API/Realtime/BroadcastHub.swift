import Synchronization

/// What one broadcast carries to the topic's members.
enum BroadcastContent: Sendable, Equatable {
    /// Pushed as text: the `{type, event, payload}` object as JSON text, relayed as text.
    case json(String)
    /// Pushed in binary (vsn 2.0.0 kind 3): relayed per member's vsn, see `UserBroadcast`.
    case user(UserBroadcast)
}

/// The members of each topic on this instance, for `broadcast`. Members on other instances
/// get it through PostgreSQL (`BroadcastBus`), which hands it back here (`deliver`).
final class BroadcastHub: Sendable {
    private let members = Mutex<[String: [ObjectIdentifier: RealtimeChannel]]>([:])

    func join(_ channel: RealtimeChannel) {
        members.withLock { $0[channel.topic, default: [:]][ObjectIdentifier(channel)] = channel }
    }

    func leave(_ channel: RealtimeChannel) {
        members.withLock { members in
            members[channel.topic]?[ObjectIdentifier(channel)] = nil
            if members[channel.topic]?.isEmpty == true { members[channel.topic] = nil }
        }
    }

    /// Sends `content` to the topic's other members, and to the sender when it asked for
    /// its own broadcasts (`config.broadcast.self`). Returns how many it was handed to.
    @discardableResult
    func relay(_ content: BroadcastContent, from sender: RealtimeChannel) -> Int {
        let targets = members.withLock { members in
            (members[sender.topic] ?? [:]).values.filter { $0 !== sender || sender.receivesOwnBroadcasts }
        }
        targets.forEach { $0.deliverBroadcast(content) }
        return targets.count
    }

    /// A broadcast another instance relayed: to every member of `topic` here.
    func deliver(_ content: BroadcastContent, topic: String) {
        let targets = members.withLock { Array(($0[topic] ?? [:]).values) }
        targets.forEach { $0.deliverBroadcast(content) }
    }

    var topicCount: Int { members.withLock { $0.count } }
}
