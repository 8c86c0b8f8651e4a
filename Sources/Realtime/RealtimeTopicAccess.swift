import Foundation
import Store

/// Who may broadcast on which topic: the server's own rule, since there is no row-level
/// security on `realtime.messages` to write policies in.
///
/// - A private topic (`config.private: true`) is joined only by those its `PrivateTopic` rule
///   names; any other private topic is refused with Supabase's `Unauthorized` reply. The rule
///   is checked again before each broadcast the member sends and when its token is replaced.
/// - A public topic carries broadcast only when the operator allows it
///   (`REALTIME_PUBLIC_BROADCAST`); otherwise a join that asks for nothing but broadcast is
///   refused (`PrivateOnly`, as a Supabase project with private-only channels answers), and a
///   join with `postgres_changes`, which row visibility governs whatever the topic, passes
///   without joining any broadcast room.
struct RealtimeTopicAccess: Sendable {
    /// Whether public topics carry broadcast between any signed-in users.
    let publicBroadcast: Bool
    let listings: ListingStore

    static let privateOnlyReason = "This server only allows broadcast on private channels (config.private: true)"

    /// The broadcast room a join enters (nil: none), or why it is refused.
    func room(topic name: String, isPrivate: Bool, hasChanges: Bool, viewer: Viewer) throws(RealtimeJoinError) -> String? {
        guard isPrivate else {
            if publicBroadcast { return RealtimeTopic.prefix + name }
            guard hasChanges else { throw .privateOnly(Self.privateOnlyReason) }
            return nil
        }
        guard let topic = PrivateTopic(name), try allows(topic, viewer: viewer) else { throw .forbidden(name) }
        return topic.room
    }

    /// Whether `viewer` may join, read and send on `topic`.
    func allows(_ topic: PrivateTopic, viewer: Viewer) throws(RealtimeJoinError) -> Bool {
        switch topic {
        case .user(let id): return id == viewer.userID
        case .admin: return viewer.isAdmin
        case .listing(let id):
            do {
                return try listings.isVisible(id, to: viewer)
            } catch {
                throw .unavailable("the database is unavailable; retry shortly")
            }
        }
    }
}
