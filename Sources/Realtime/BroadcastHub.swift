import Synchronization

/// What one broadcast carries to the topic's members.
enum BroadcastContent: Sendable, Equatable {
    /// Pushed as text: the `{type, event, payload}` object as JSON text, relayed as text.
    case json(String)
    /// Pushed in binary (vsn 2.0.0 kind 3): relayed per member's vsn, see `UserBroadcast`.
    case user(UserBroadcast)
}

/// The members of each broadcast room on this instance, for `broadcast`. A room is the key
/// `RealtimeTopicAccess` admitted a channel to (a public topic, or a private topic's canonical
/// name); only admitted channels are members, so whatever reaches a room, from this instance or
/// another (`BroadcastBus` hands it back here, `deliver`), reaches authorized members only.
/// Each member receives it under the topic it joined.
final class BroadcastHub: Sendable {
    private let members = Mutex<[String: [ObjectIdentifier: RealtimeChannel]]>([:])

    func join(_ channel: RealtimeChannel) {
        guard let room = channel.room else { return }
        members.withLock { $0[room, default: [:]][ObjectIdentifier(channel)] = channel }
    }

    func leave(_ channel: RealtimeChannel) {
        guard let room = channel.room else { return }
        members.withLock { members in
            members[room]?[ObjectIdentifier(channel)] = nil
            if members[room]?.isEmpty == true { members[room] = nil }
        }
    }

    /// Sends `content` to the topic's other members, and to the sender when it asked for
    /// its own broadcasts (`config.broadcast.self`). Returns how many it was handed to.
    @discardableResult
    func relay(_ content: BroadcastContent, from sender: RealtimeChannel) -> Int {
        guard let room = sender.room else { return 0 }
        let targets = members.withLock { members in
            (members[room] ?? [:]).values.filter { $0 !== sender || sender.receivesOwnBroadcasts }
        }
        targets.forEach { $0.deliverBroadcast(content) }
        return targets.count
    }

    /// A broadcast another instance relayed: to every member of `room` here.
    func deliver(_ content: BroadcastContent, room: String) {
        let targets = members.withLock { Array(($0[room] ?? [:]).values) }
        targets.forEach { $0.deliverBroadcast(content) }
    }

    var roomCount: Int { members.withLock { $0.count } }
}
