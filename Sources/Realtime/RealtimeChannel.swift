import Foundation
import Synchronization

/// One joined topic of one connection: its postgres_changes subscriptions, broadcast
/// options and the identity of its access token.
///
/// Events that arrive before the join is answered are held back and sent right after the
/// "Subscribed to PostgreSQL" message: clients learn their subscription ids from the join
/// reply and would drop an event that came first.
final class RealtimeChannel: Sendable {
    let topic: String
    let joinRef: String?
    let subscriptions: [PostgresChangeSubscription]
    /// `config.broadcast.self`: the sender receives its own broadcasts too.
    let receivesOwnBroadcasts: Bool
    /// `config.broadcast.ack`: each broadcast is answered with an ok reply.
    let acknowledgesBroadcasts: Bool
    /// The broadcast room the join was admitted to (`RealtimeTopicAccess`); nil: the channel
    /// neither sends nor receives broadcasts.
    let room: String?
    /// The rule of a private topic, checked again before each broadcast and at a token change.
    let privateTopic: PrivateTopic?

    /// The session whose phone this channel keeps up to date (held in `LiveSessions` from the
    /// join to the close, whatever token refreshes replace the identity meanwhile).
    let heldSession: UUID
    /// Only a channel with postgres_changes subscriptions receives the user's changes.
    var holdsSession: Bool { !subscriptions.isEmpty }
    private let sessionHeld = Atomic<Bool>(false)

    /// Marks the session held; true the first time (hold it then, once).
    func takeSessionHold() -> Bool {
        holdsSession && !sessionHeld.exchange(true, ordering: .relaxed)
    }

    /// Ends the hold; true when there was one (release it then, once).
    func dropSessionHold() -> Bool {
        sessionHeld.exchange(false, ordering: .relaxed)
    }

    private struct State {
        var identity: RealtimeIdentity
        var held: [PhoenixOutbound]? = []
        var registration: UInt64?
        var closed = false
    }

    private let state: Mutex<State>
    private let send: @Sendable (PhoenixOutbound) -> Void
    /// Called (once) when a delivery finds the token expired or revoked.
    private let expire: @Sendable (RealtimeChannel, String) -> Void
    private let revoked: @Sendable (UUID) -> Bool

    init(topic: String, joinRef: String?, subscriptions: [PostgresChangeSubscription], receivesOwnBroadcasts: Bool,
         acknowledgesBroadcasts: Bool, room: String?, privateTopic: PrivateTopic?, identity: RealtimeIdentity, send: @escaping @Sendable (PhoenixOutbound) -> Void,
         expire: @escaping @Sendable (RealtimeChannel, String) -> Void, revoked: @escaping @Sendable (UUID) -> Bool) {
        self.topic = topic
        self.joinRef = joinRef
        self.subscriptions = subscriptions
        self.receivesOwnBroadcasts = receivesOwnBroadcasts
        self.acknowledgesBroadcasts = acknowledgesBroadcasts
        self.room = room
        self.privateTopic = privateTopic
        state = Mutex(State(identity: identity))
        heldSession = identity.sessionID
        self.send = send
        self.expire = expire
        self.revoked = revoked
    }

    var identity: RealtimeIdentity { state.withLock { $0.identity } }
    var registration: UInt64? {
        get { state.withLock { $0.registration } }
        set { state.withLock { $0.registration = newValue } }
    }

    func replaceIdentity(_ identity: RealtimeIdentity) {
        state.withLock { $0.identity = identity }
    }

    /// Why the channel must close now (token expired or revoked), or nil.
    func problem(now: Date = Date()) -> String? {
        let identity = state.withLock { $0.identity }
        return identity.problem(now: now, revoked: revoked)
    }

    /// Marks the channel closed; false when it already was (close exactly once).
    func markClosed() -> Bool {
        state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
    }

    /// Sends what was held back since the join; from now on events go out at once.
    func release() {
        let held = state.withLock { state in
            defer { state.held = nil }
            return state.held ?? []
        }
        held.forEach(send)
    }

    /// Changes for the channel's user from the feed: the token is checked first, then each
    /// change goes out once, naming every subscription it matches.
    func deliver(_ changes: [RealtimeChange]) {
        if let problem = problem() {
            expire(self, problem)
            return
        }
        for change in changes {
            let ids = subscriptions.filter { $0.matches(change) }.map(\.id)
            guard !ids.isEmpty else { continue }
            emit(PhoenixOutbound(joinRef: joinRef, ref: nil, topic: topic, event: "postgres_changes",
                                 payload: change.payload(ids: ids)))
        }
    }

    /// A broadcast relayed from another member (or this one, with `self`).
    func deliverBroadcast(_ content: BroadcastContent) {
        emit(.broadcast(topic: topic, content))
    }

    private func emit(_ message: PhoenixOutbound) {
        let sendNow = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.held != nil else { return true }
            state.held?.append(message)
            return false
        }
        if sendNow { send(message) }
    }
}
