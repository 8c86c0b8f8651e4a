import Foundation
import Postgres
import Store

/// The recent reads of a ChangeFanout, kept so that an idle incremental sync can be answered
/// from memory: "nothing new for you" with a fresh cursor, without a database query.
///
/// ## The proof
///
/// Read k (k = 1, 2, …) takes snapshot W_k and computes the audience A_k of everything that
/// committed after W_(k-1) and is visible in W_k (SyncFeed.audience, one SQL statement; the
/// first read has no W_0 and counts as "everyone"). A_k is a superset of the users who can
/// see any row or access record written by those transactions (dispatch_sync_audience,
/// migrations/0006: the holders of every changed row, its listing and its children, every
/// user with an access record, everyone when a users row changed). So the intervals
/// (W_(k-1), W_k] chain without gaps, and for each we know who may care.
///
/// A request from user u (not an admin: admins see rows with no holder) with cursor S, not
/// mid-chain, arriving at time t. Let n be the newest read. We answer "empty, next_since =
/// W_n" only when all of the following hold, and then the answer is what the database would
/// have said (up to duplicates, which contract §6 allows):
///
/// 1. *S covers some W_j, and u ∉ A_(j+1) … A_n, none of them "everyone".* Every transaction
///    visible in W_j is visible in S (SyncSnapshot.covers), so whatever committed after S and
///    is visible in W_n committed in (W_j, W_n], where u sees nothing. This includes a
///    transaction that started before the cursor and commits after it: S lists it as
///    running, so S covers no read in which it is visible; the covered W_j predates its
///    commit, which therefore lies in one of the intervals checked, whose audience names the
///    users who can see what it wrote.
/// 2. *Nothing committed after W_n that t could depend on.* Every write C to a synced table
///    acknowledged before t has a notification N committed before t, in one of two ways
///    (migrations/0006 statement triggers, 0026; access records are written by triggers of
///    the same statements): a writer that is not dispatchd (psql, a restore, a test's SQL)
///    notifies inside C, so N = C; a dispatchd connection (`afterCommitChannels`) leaves the
///    trigger's NOTIFY to itself and sends N as its own transaction after C commits and
///    before the call that ran C returns (PostgresConnection+AfterCommitNotify.swift), so
///    before any client is answered; N therefore commits after C and before t. Read n
///    started after the listener connection of epoch e was LISTENing and after the fanout
///    had counted `c` notifications; a *fence* on epoch e, requested at t (PostgresListener:
///    a round trip on the LISTEN connection, shared by all requests waiting at once), has
///    since delivered every notification of a transaction acknowledged to its client before
///    t — on this instance or any other — so N's. If the count is still `c`, N was counted
///    before read n began: N, and C before it, committed before W_n was taken, so C was
///    visible in W_n already. (A transaction still uncommitted, or committing concurrently
///    with the request, may be ordered after it; so may a C whose process died between
///    its commit and N: C was never acknowledged, and the fanout's safety read, at most
///    ChangeFanout.defaultSafetyInterval later, delivers it.) A fence on another epoch means the connection was
///    lost in between and notifications may be lost: no answer until a read on the new
///    connection is done (the fanout reads at once after a reconnect; that read's audience is
///    computed from the tables, so it covers the outage).
/// 3. *The database would not refuse the cursor:* S.xmax ≤ the fence's snapshot xmax (not a
///    cursor from the future), and the 410 rule with W_n's horizon does not fire (the
///    database decides those cases).
///
/// Returning W_n, not S: W_n is a real snapshot, so it is a gap-free cursor for whatever
/// commits later; nothing visible to u committed in (S, W_n] (1), so nothing is skipped. When
/// S saw more than W_n (S.xmax > W_n.xmax: transactions on tables without NOTIFY, or a
/// transaction committing now), W_n hands some of it back later as duplicates, never a miss.
/// Until the first read after start-up, on every read failure and while a read is due, the
/// request goes to the database.
///
/// ## Who is asking, from memory too
///
/// The caller's role and active flag come from the users row, normally read per request. The
/// history keeps the rows it was shown (`remember`), tagged with `usersGeneration` as read
/// *before* the row was queried; the generation moves whenever a recorded read's audience is
/// "everyone" (a users row changed in its interval) and when reads are forgotten. Under the
/// conditions above, a remembered row is current: a users write C acknowledged before t but
/// not seen by the row's query committed after the tag was read; by 2 the read covering C is
/// recorded, after the tag (it sees C, the query did not), and it says "everyone", so the
/// generation moved and the row is not used.
package final class ChangeHistory: @unchecked Sendable {
    package struct Read: Sendable {
        let snapshot: SyncSnapshot
        let horizon: UInt64
        let users: Set<UUID>
        let everyone: Bool
        /// The listener connection that was LISTENing when the read began (nil: none).
        let epoch: UInt64?
        /// Notifications counted when the read began.
        let notificationsBefore: UInt64
    }

    /// How many reads are kept: a cursor older than all of them goes to the database.
    package let capacity: Int
    private let lock = NSLock()
    private var reads: [Read] = []
    private var notifications: UInt64 = 0
    private var users: [UUID: RememberedUser] = [:]
    private var generation: UInt64 = 0

    package struct RememberedUser {
        let isAdmin: Bool
        let isActive: Bool
        let generation: UInt64
    }

    /// At most this many remembered users (a team's size; beyond it, start over).
    package static let maxRememberedUsers = 100_000

    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 1)
    }

    /// Counts a notification (called by the listener thread before anything else sees it).
    package func notified() {
        lock.withLock { notifications &+= 1 }
    }

    package var notificationCount: UInt64 { lock.withLock { notifications } }

    /// Read this *before* querying a users row to `remember`.
    package var usersGeneration: UInt64 { lock.withLock { generation } }

    /// A users row as the database answered it, queried after `usersGeneration` returned `tag`.
    package func remember(_ id: UUID, isAdmin: Bool, isActive: Bool, tag: UInt64) {
        lock.withLock {
            guard tag == generation else { return }
            if users.count >= Self.maxRememberedUsers { users.removeAll() }
            users[id] = RememberedUser(isAdmin: isAdmin, isActive: isActive, generation: tag)
        }
    }

    /// Records a successful read.
    package func record(_ read: Read) {
        lock.withLock {
            if read.everyone { generation &+= 1 }
            reads.append(read)
            if reads.count > capacity { reads.removeFirst(reads.count - capacity) }
        }
    }

    /// A read failed: what committed in its interval is unknown, so forget everything (the
    /// next read starts from the last good snapshot, and a cursor must cover a newer one).
    package func forget() {
        lock.withLock {
            reads.removeAll()
            generation &+= 1
        }
    }

    /// The caller (from a remembered users row) and the `next_since` for an idle delta
    /// answered from memory, or nil when it cannot be proven that nothing new is visible to
    /// user `userID` (see the type's comment).
    package func idleCursor(for userID: UUID, cursor: SyncCursor, fence: PostgresListener.Fence) -> (Viewer, SyncCursor)? {
        guard cursor.position == nil, let since = cursor.since,
              let fenced = SyncSnapshot(text: fence.snapshot), since.xmax <= fenced.xmax
        else { return nil }
        return lock.withLock { () -> (Viewer, SyncCursor)? in
            guard let latest = reads.last, latest.epoch == fence.epoch, latest.notificationsBefore == notifications,
                  let user = users[userID], user.generation == generation, user.isActive, !user.isAdmin
            else { return nil }
            let viewer = Viewer(userID: userID, isAdmin: false)
            if cursor.lower > 0 && cursor.lower <= latest.horizon && latest.horizon > cursor.horizon { return nil }
            for read in reads.reversed() {
                if since.covers(read.snapshot) {
                    return (viewer, SyncCursor(since: latest.snapshot, horizon: latest.horizon))
                }
                if read.everyone || read.users.contains(viewer.userID) { return nil }
            }
            return nil
        }
    }
}
