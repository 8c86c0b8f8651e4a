import Foundation
import HTTPServer
import ServiceKit
import Synchronization

/// One realtime socket: the Phoenix channel protocol over a WebSocketHandler.
///
/// The transport calls `received` on its worker pool, one call at a time per connection and
/// in order, where the database may be used (a join reads the user row and the current
/// snapshot); handling inline keeps the transport's back-pressure (a slow handler stops the
/// server reading the socket). Server-initiated closes (the token timer, a delivery that
/// finds the token expired) go through `queue`, so they never block the thread that noticed.
/// Sending is the outbound's business (any thread); channel state is behind locks.
final class RealtimeConnection: WebSocketHandler, Sendable {
    let serializer: PhoenixSerializer
    let service: RealtimeService
    let queue = BackgroundThread.serialQueue(label: "realtime-connection")

    struct State {
        var outbound: (any WebSocketOutbound)?
        var channels: [String: RealtimeChannel] = [:]
        var broadcastTokens: Double
        var tokensAt = ContinuousClock.now
        var closed = false
    }

    let state: Mutex<State>

    init(serializer: PhoenixSerializer, service: RealtimeService) {
        self.serializer = serializer
        self.service = service
        state = Mutex(State(broadcastTokens: service.limits.broadcastBurst))
    }

    // MARK: WebSocketHandler

    func opened(_ outbound: any WebSocketOutbound) {
        state.withLock { $0.outbound = outbound }
        service.track(self)
    }

    func received(text: String) {
        handle(text)
    }

    func received(binary: [UInt8]) {
        handle(binary: binary)
    }

    func closed(code: WebSocketCloseCode?) {
        let channels = state.withLock { state in
            state.closed = true
            state.outbound = nil
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        channels.forEach { release($0) }
        service.untrack(self)
    }

    // MARK: Sending

    /// Sends `message` in the connection's format; false when it was not sent (the socket is
    /// gone or full, or this vsn cannot carry the message).
    @discardableResult
    func send(_ message: PhoenixOutbound) -> Bool {
        guard let outbound = state.withLock({ $0.outbound }) else { return false }
        switch serializer.frame(message) {
        case .text(let text)?: return outbound.send(text: text)
        case .binary(let bytes)?: return outbound.send(binary: bytes)
        case nil: return false
        }
    }

    /// Decodes one message and acts on it; a message that is not a Phoenix message closes
    /// the socket with 1008 and the reason (no topic or ref to reply to).
    func handle(_ text: String) {
        let message: PhoenixMessage
        do {
            message = try serializer.decode(text)
        } catch {
            let reason = switch error {
            case .notJSON: "malformed message: not JSON"
            case .shape(let detail): "malformed message: \(detail)"
            }
            closeMalformed(reason)
            return
        }
        dispatch(message)
    }

    /// Closes the socket with 1008 and `reason` (cut to the close frame's 123 bytes).
    func closeMalformed(_ reason: String) {
        state.withLock { $0.outbound }?.close(code: .policyViolation, reason: String(reason.utf8.prefix(123)) ?? "malformed message")
    }

    // MARK: Channel lifecycle

    func channel(_ topic: String) -> RealtimeChannel? {
        state.withLock { $0.channels[topic] }
    }

    /// Forgets a channel everywhere it is registered (feed, hub); sends nothing.
    func release(_ channel: RealtimeChannel) {
        _ = channel.markClosed()
        if channel.dropSessionHold() { service.sync.liveSessions.release(channel.heldSession) }
        if let id = channel.registration { service.feed.unregister(id) }
        service.hub.leave(channel)
    }

    /// Removes the channel from this connection if it is still the one joined on its topic.
    func remove(_ channel: RealtimeChannel) {
        state.withLock { state in
            if state.channels[channel.topic] === channel { state.channels[channel.topic] = nil }
        }
        release(channel)
    }

    /// The server ends a channel (expired or revoked token): a `system` error naming why,
    /// then `phx_close`, as Supabase does.
    func shutdown(_ channel: RealtimeChannel, reason: String) {
        guard channel.markClosed() else { return }
        remove(channel)
        send(.system(topic: channel.topic, joinRef: channel.joinRef, extension: "system", ok: false, message: reason))
        send(.close(topic: channel.topic, joinRef: channel.joinRef))
    }

    func checkTokens(now: Date) {
        let channels = state.withLock { Array($0.channels.values) }
        for channel in channels {
            if let problem = channel.problem(now: now) {
                queue.async { [self] in shutdown(channel, reason: problem) }
            }
        }
    }

    func closeForShutdown() {
        state.withLock { $0.outbound }?.close(code: .goingAway, reason: "server shutting down")
    }

    /// One broadcast token (rate limit: a bucket refilled at `broadcastsPerSecond`).
    func takeBroadcastToken() -> Bool {
        let limits = service.limits
        return state.withLock { state in
            let now = ContinuousClock.now
            let elapsed = (now - state.tokensAt).timeInterval
            state.tokensAt = now
            state.broadcastTokens = min(limits.broadcastBurst, state.broadcastTokens + elapsed * limits.broadcastsPerSecond)
            guard state.broadcastTokens >= 1 else { return false }
            state.broadcastTokens -= 1
            return true
        }
    }
}
