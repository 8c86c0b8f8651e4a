import Foundation
import HTTPServer
import JSON
import Store

/// The events of the Phoenix channel protocol as Supabase Realtime speaks them.
extension RealtimeConnection {
    func dispatch(_ message: PhoenixMessage) {
        if message.topic == PhoenixOutbound.heartbeatTopic {
            guard message.event == "heartbeat" else {
                send(.error(to: message, reason: "unmatched topic"))
                return
            }
            send(.reply(to: message, ok: true))
            return
        }
        if message.event == "phx_join" {
            join(message)
            return
        }
        guard let channel = channel(message.topic) else {
            // Phoenix's answer for a topic this socket has not joined.
            if message.ref != nil { send(.error(to: message, reason: "unmatched topic")) }
            return
        }
        switch message.event {
        case "phx_leave":
            remove(channel)
            send(.reply(to: message, ok: true))
            send(.close(topic: channel.topic, joinRef: channel.joinRef))
        case "access_token":
            refreshToken(message, channel: channel)
        case "broadcast":
            broadcast(message, channel: channel)
        case "presence":
            send(.error(to: message, reason: "PresenceNotSupported: presence is not available on this server"))
        default:
            if message.ref != nil { send(.error(to: message, reason: "unknown event \(message.event)")) }
        }
    }

    // MARK: Join

    func join(_ message: PhoenixMessage) {
        guard message.topic.hasPrefix(RealtimeTopic.prefix) else {
            send(.error(to: message, reason: "unmatched topic"))
            return
        }
        guard message.topic.count > RealtimeTopic.prefix.count else {
            send(.error(to: message, reason: "TopicNameRequired: You must provide a topic name"))
            return
        }
        // A second join of a joined topic replaces the first (Phoenix closes the old one).
        if let old = channel(message.topic) {
            remove(old)
            send(.close(topic: old.topic, joinRef: old.joinRef))
        }
        do {
            let channel = try makeChannel(message)
            let echoes = channel.subscriptions.map(\.echo).joined(separator: ",")
            send(.reply(to: message, ok: true, response: #"{"postgres_changes":[\#(echoes)]}"#))
            if !channel.subscriptions.isEmpty {
                send(.system(topic: channel.topic, joinRef: channel.joinRef, extension: "postgres_changes", ok: true,
                             message: "Subscribed to PostgreSQL"))
            }
            channel.release()
        } catch {
            send(.error(to: message, reason: error.reason))
        }
    }

    /// Validates the join, authenticates its token, and arms its subscriptions (RealtimeFeed:
    /// the cursor is taken before this returns, so before any reply is sent).
    private func makeChannel(_ message: PhoenixMessage) throws(RealtimeJoinError) -> RealtimeChannel {
        let limits = service.limits
        let config: [String: JSONValue]
        switch message.payload["config"] {
        case nil, .null?: config = [:]
        case .object(let object)?: config = object
        default: throw .invalid("config must be an object")
        }
        var subscriptions: [PostgresChangeSubscription] = []
        switch config["postgres_changes"] {
        case nil, .null?: break
        case .array(let entries)?:
            guard entries.count <= limits.subscriptionsPerChannel else {
                throw .limit("at most \(limits.subscriptionsPerChannel) postgres_changes entries per channel")
            }
            for entry in entries { subscriptions.append(try PostgresChangeSubscription(entry)) }
        default: throw .invalid("config.postgres_changes must be an array")
        }
        let replayCursor = try RealtimeReplay.requestedCursor(in: config, feed: service.sync.feed)
        let broadcast: [String: JSONValue]
        switch config["broadcast"] {
        case .object(let object)?: broadcast = object
        default: broadcast = [:]
        }
        let token: String?
        switch message.payload["access_token"] {
        case .string(let text)?: token = text
        default: token = nil
        }
        guard state.withLock({ $0.channels.count }) < limits.channelsPerConnection else {
            throw .limit("at most \(limits.channelsPerConnection) channels per connection")
        }
        let identity = try service.auth.realtimeIdentity(token: token)
        // Who may broadcast here: the server's rule for private topics, the operator's for public ones.
        let name = String(message.topic.dropFirst(RealtimeTopic.prefix.count))
        let isPrivate = config["private"] == .bool(true)
        let room = try service.access.room(topic: name, isPrivate: isPrivate, hasChanges: !subscriptions.isEmpty,
                                           viewer: identity.viewer)
        let channel = RealtimeChannel(
            topic: message.topic, joinRef: message.joinRef, subscriptions: subscriptions,
            receivesOwnBroadcasts: broadcast["self"] == .bool(true), acknowledgesBroadcasts: broadcast["ack"] == .bool(true),
            room: room, privateTopic: isPrivate ? PrivateTopic(name) : nil, identity: identity,
            send: { [weak self] in self?.send($0) },
            expire: { [weak self] channel, reason in
                guard let self else { return }
                queue.async { self.shutdown(channel, reason: reason) }
            },
            revoked: { [auth = service.auth] in auth.isSessionEnded($0) })
        if !subscriptions.isEmpty {
            service.ensureListening()
            // Replayed changes are held by the channel until the join is answered, ahead of
            // any live one; live delivery starts where the replay ends (RealtimeReplay).
            var liveFrom: SyncCursor?
            if let replayCursor {
                let replay = try RealtimeReplay.read(service.sync.feed, viewer: identity.viewer, from: replayCursor,
                                                     limit: limits.replayChanges)
                channel.deliver(replay.changes)
                liveFrom = replay.resumeFrom
            }
            do {
                channel.registration = try service.feed.register(identity.viewer, from: liveFrom) { [weak channel] changes in
                    channel?.deliver(changes)
                }
            } catch {
                throw .unavailable("the database is unavailable; retry shortly")
            }
        }
        // Broadcasts from other instances reach this member from here on.
        service.bus.ensureListening()
        service.hub.join(channel)
        // A channel that receives changes makes its session live: no push wakes that phone.
        if channel.takeSessionHold() { service.sync.liveSessions.hold(channel.heldSession) }
        let stillOpen = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.channels[channel.topic] = channel
            return true
        }
        if !stillOpen { release(channel) }
        return channel
    }

    // MARK: Channel events

    /// `access_token`: a fresh token for the channel's user replaces the old one; an invalid
    /// one, or one of another user, closes the channel. The publishable key and a missing
    /// token are ignored, as Supabase ignores them.
    func refreshToken(_ message: PhoenixMessage, channel: RealtimeChannel) {
        guard case .string(let token)? = message.payload["access_token"], !token.hasPrefix("sb_") else { return }
        do {
            let identity = try service.auth.realtimeIdentity(token: token)
            guard identity.userID == channel.identity.userID else {
                shutdown(channel, reason: "The access token belongs to another user")
                return
            }
            channel.replaceIdentity(identity)
            // The user's role or the listing's parties may have changed since the join.
            if let topic = channel.privateTopic, try !service.access.allows(topic, viewer: identity.viewer) {
                shutdown(channel, reason: RealtimeJoinError.forbidden(String(channel.topic.dropFirst(RealtimeTopic.prefix.count))).reason)
            }
        } catch {
            shutdown(channel, reason: error.reason)
        }
    }
}
