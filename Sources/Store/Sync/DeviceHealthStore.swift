import Foundation
import Postgres

/// What one device did since the last flush (API/DeviceActivity gathers these in memory).
public struct DeviceHealthDelta: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case session
        case apiKey = "api_key"
    }

    public var deviceID: UUID
    public var kind: Kind
    public var userID: UUID
    public var firstSeen: Date
    public var lastSeen: Date
    public var lastSync: Date?
    public var lastPush: Date?
    public var lastReset: Date?
    /// The `next_since` last handed to the device (encoded only when written: a flush, not
    /// every request, pays for it).
    public var cursor: SyncCursor?
    /// The database epoch `cursor` was stamped with when it was sent (see `SyncCursor.encoded(epoch:)`).
    public var cursorEpoch: String?
    public var syncs = 0
    public var pushes = 0
    public var resets = 0
    public var rejected = 0
    public var conflicts = 0
    public var claimConflicts = 0

    public init(deviceID: UUID, kind: Kind, userID: UUID, at time: Date) {
        self.deviceID = deviceID
        self.kind = kind
        self.userID = userID
        firstSeen = time
        lastSeen = time
    }
}

/// One device's recorded sync health (`sync_device_health`, migration 0024).
public struct DeviceHealth: Sendable, Equatable {
    public var deviceID: UUID
    public var kind: DeviceHealthDelta.Kind
    public var userID: UUID
    /// The session's client, when the device is a sign-in session (`auth_sessions.user_agent`).
    public var userAgent: String?
    /// The API key's name, when the device is a key.
    public var keyName: String?
    public var firstSeen: Date
    public var lastSeen: Date
    public var lastSync: Date?
    public var lastPush: Date?
    public var lastReset: Date?
    public var cursor: String?
    public var syncs: Int
    public var pushes: Int
    public var resets: Int
    public var rejected: Int
    public var conflicts: Int
    public var claimConflicts: Int
}

/// Reads and writes `sync_device_health`.
public struct DeviceHealthStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Adds a batch in one statement: the arrays go in as parameters and unnest() pairs them
    /// up, so a flush costs one round trip however many devices it carries. Counters add up
    /// and times keep the latest, so two instances flushing one device do not overwrite each
    /// other. A device whose user was deleted meanwhile is skipped (the join), not an error.
    public func record(_ batch: [DeviceHealthDelta]) throws {
        guard !batch.isEmpty else { return }
        try pool.execute("""
            INSERT INTO sync_device_health AS h (device_id, device_kind, user_id, first_seen_at, last_seen_at, last_sync_at,
                                                 last_push_at, last_reset_at, last_cursor, syncs, pushes, resets, rejected,
                                                 conflicts, claim_conflicts)
            SELECT b.* FROM unnest(\(batch.map(\.deviceID))::uuid[], \(batch.map(\.kind.rawValue))::text[],
                                   \(batch.map(\.userID))::uuid[], \(batch.map(\.firstSeen))::timestamptz[],
                                   \(batch.map(\.lastSeen))::timestamptz[], \(batch.map(\.lastSync))::timestamptz[],
                                   \(batch.map(\.lastPush))::timestamptz[], \(batch.map(\.lastReset))::timestamptz[],
                                   \(batch.map { $0.cursor?.encoded(epoch: $0.cursorEpoch) })::text[], \(batch.map(\.syncs))::int8[], \(batch.map(\.pushes))::int8[],
                                   \(batch.map(\.resets))::int8[], \(batch.map(\.rejected))::int8[],
                                   \(batch.map(\.conflicts))::int8[], \(batch.map(\.claimConflicts))::int8[])
                 AS b(device_id, device_kind, user_id, first_seen_at, last_seen_at, last_sync_at, last_push_at, last_reset_at,
                      last_cursor, syncs, pushes, resets, rejected, conflicts, claim_conflicts)
            JOIN users u ON u.id = b.user_id
            ON CONFLICT (device_id) DO UPDATE SET
                first_seen_at = LEAST(h.first_seen_at, EXCLUDED.first_seen_at),
                last_seen_at = GREATEST(h.last_seen_at, EXCLUDED.last_seen_at),
                last_sync_at = GREATEST(h.last_sync_at, EXCLUDED.last_sync_at),
                last_push_at = GREATEST(h.last_push_at, EXCLUDED.last_push_at),
                last_reset_at = GREATEST(h.last_reset_at, EXCLUDED.last_reset_at),
                last_cursor = CASE WHEN EXCLUDED.last_sync_at IS NOT NULL
                                    AND EXCLUDED.last_sync_at >= COALESCE(h.last_sync_at, '-infinity')
                                   THEN EXCLUDED.last_cursor ELSE h.last_cursor END,
                syncs = h.syncs + EXCLUDED.syncs, pushes = h.pushes + EXCLUDED.pushes, resets = h.resets + EXCLUDED.resets,
                rejected = h.rejected + EXCLUDED.rejected, conflicts = h.conflicts + EXCLUDED.conflicts,
                claim_conflicts = h.claim_conflicts + EXCLUDED.claim_conflicts
            """)
    }

    /// A user's devices, most recently seen first.
    public func devices(userID: UUID) throws -> [DeviceHealth] {
        try read("h.user_id = \(userID)", limit: 200)
    }

    /// One device, or nil.
    public func device(_ id: UUID) throws -> DeviceHealth? {
        try read("h.device_id = \(id)", limit: 1).first
    }

    /// Every device, most recently seen first, keyset-paged on (last_seen_at, device_id).
    public func recent(limit: Int, after: (seen: Date, id: UUID)? = nil) throws -> [DeviceHealth] {
        guard let after else { return try read("TRUE", limit: limit) }
        return try read("(h.last_seen_at, h.device_id) < (\(after.seen), \(after.id))", limit: limit)
    }

    private func read(_ condition: PostgresQuery, limit: Int) throws -> [DeviceHealth] {
        let rows = try pool.query("""
            SELECT h.*, s.user_agent, k.name AS key_name FROM sync_device_health h
            LEFT JOIN auth_sessions s ON h.device_kind = 'session' AND s.id = h.device_id
            LEFT JOIN api_keys k ON h.device_kind = 'api_key' AND k.id = h.device_id
            WHERE \(condition) ORDER BY h.last_seen_at DESC, h.device_id DESC LIMIT \(unsafeSQL: String(max(1, limit)))
            """)
        return try rows.map { row in
            let kindText: String = try row.decode("device_kind")
            guard let kind = DeviceHealthDelta.Kind(rawValue: kindText) else {
                throw PostgresError(kind: .decoding, message: "unknown device_kind \(kindText)", column: "device_kind")
            }
            return DeviceHealth(deviceID: try row.decode("device_id"), kind: kind,
                         userID: try row.decode("user_id"), userAgent: try row.decode("user_agent"),
                         keyName: try row.decode("key_name"), firstSeen: try row.decode("first_seen_at"),
                         lastSeen: try row.decode("last_seen_at"), lastSync: try row.decode("last_sync_at"),
                         lastPush: try row.decode("last_push_at"), lastReset: try row.decode("last_reset_at"),
                         cursor: try row.decode("last_cursor"), syncs: try row.decode("syncs"), pushes: try row.decode("pushes"),
                         resets: try row.decode("resets"), rejected: try row.decode("rejected"),
                         conflicts: try row.decode("conflicts"), claimConflicts: try row.decode("claim_conflicts"))
        }
    }
}
