import Foundation
import HTTPServer

/// Broadcast between the members of a topic, pushed as text (the `broadcast` event, both
/// vsns) or, with vsn 2.0.0, as a binary user broadcast push (`PhoenixBinaryCodec`), which is
/// how supabase-swift and supabase-js send every broadcast by default. Both kinds share the
/// checks (event name, size, rate, token), `config.broadcast.self` and `ack`.
extension RealtimeConnection {
    /// `broadcast` `{type: "broadcast", event, payload}`: relayed as text to the topic's
    /// members on this instance (the sender too with `self`) and, through PostgreSQL, on the
    /// others (BroadcastBus), acknowledged with `ack`.
    func broadcast(_ message: PhoenixMessage, channel: RealtimeChannel) {
        guard case .string(let event)? = message.payload["event"], !event.isEmpty else {
            send(.error(to: message, reason: Self.missingEventReason))
            return
        }
        let text = JSONText.encode(.object(message.payload))
        relay(.json(text), bytes: text.utf8.count, replyingTo: message, channel: channel)
    }

    /// One binary message. vsn 1.0.0 has none: 1003. One that does not decode: 1008 with the
    /// reason, like malformed text (its refs and topic cannot be trusted to reply to).
    func handle(binary bytes: [UInt8]) {
        guard serializer == .v2 else {
            state.withLock { $0.outbound }?.close(code: .unsupportedData, reason: "binary messages need vsn=2.0.0")
            return
        }
        let push: PhoenixBinaryCodec.Push
        do {
            push = try PhoenixBinaryCodec.decode(bytes)
        } catch {
            closeMalformed("malformed binary message: \(error.reason)")
            return
        }
        // What replies are addressed with: the push's refs and topic.
        var message = PhoenixMessage(joinRef: push.joinRef, ref: push.ref, topic: push.topic, event: "broadcast", payload: [:])
        guard let channel = channel(push.topic) else {
            if push.ref != nil { send(.error(to: message, reason: "unmatched topic")) }
            return
        }
        switch push.body {
        case .event(let event, _):
            message.event = event
            send(.error(to: message, reason: "UnsupportedBinaryPayload: only broadcasts take a binary payload (kind 3)"))
        case .userBroadcast(let user):
            guard !user.event.isEmpty else {
                send(.error(to: message, reason: Self.missingEventReason))
                return
            }
            guard user.encoding == .binary || Self.isJSONObject(user.payload) else {
                send(.error(to: message, reason: "InvalidBroadcast: a JSON payload must be the UTF-8 text of a JSON object"))
                return
            }
            relay(.user(user), bytes: user.payload.count, replyingTo: message, channel: channel)
        }
    }

    private static let missingEventReason = "InvalidBroadcast: a broadcast needs an event name"

    /// The limits, then the relay and the ack: the same for text and binary broadcasts.
    /// `bytes` is what the size limit counts (the JSON text, or the user payload).
    private func relay(_ content: BroadcastContent, bytes: Int, replyingTo message: PhoenixMessage, channel: RealtimeChannel) {
        guard let room = channel.room else {
            send(.error(to: message, reason: RealtimeJoinError.privateOnly(RealtimeTopicAccess.privateOnlyReason).reason))
            return
        }
        guard bytes <= service.limits.broadcastBytes else {
            send(.error(to: message, reason: "PayloadTooLarge: a broadcast may carry at most \(service.limits.broadcastBytes) bytes"))
            return
        }
        guard takeBroadcastToken() else {
            send(.error(to: message, reason: "ClientBroadcastRateLimitReached: too many broadcasts per second"))
            return
        }
        if let problem = channel.problem() {
            shutdown(channel, reason: problem)
            return
        }
        if let topic = channel.privateTopic, !mayStillSend(on: topic, replyingTo: message, channel: channel) { return }
        service.hub.relay(content, from: channel)
        service.bus.publish(content, room: room)
        if channel.acknowledgesBroadcasts && message.ref != nil { send(.reply(to: message, ok: true)) }
    }

    /// A private topic's rule, again before each broadcast (a listing's parties change, an admin
    /// is demoted): a sender who may no longer join is refused and the channel ends.
    private func mayStillSend(on topic: PrivateTopic, replyingTo message: PhoenixMessage, channel: RealtimeChannel) -> Bool {
        do {
            if try service.access.allows(topic, viewer: channel.identity.viewer) { return true }
            let refusal = RealtimeJoinError.forbidden(String(channel.topic.dropFirst(RealtimeTopic.prefix.count))).reason
            send(.error(to: message, reason: refusal))
            shutdown(channel, reason: refusal)
        } catch {
            send(.error(to: message, reason: error.reason))
        }
        return false
    }

    /// A JSON user payload is relayed as sent and spliced into 1.0.0 members' text, so it must
    /// be exactly one JSON object: valid UTF-8, starting with `{` (no byte-order mark), parsing whole.
    private static func isJSONObject(_ payload: [UInt8]) -> Bool {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard payload.first(where: { !whitespace.contains($0) }) == UInt8(ascii: "{"),
              let text = String(validating: payload, as: UTF8.self) else { return false }
        return JSONText.object(text) != nil
    }
}
