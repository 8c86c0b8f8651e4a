import Foundation
import Postgres

/// The counts behind the console's overview ("is everything all right?"): what is stuck in the
/// outboxes, which devices stopped syncing, the server errors the instances recorded, and the
/// office's work at a glance. Read-only, one statement per family, all at the database's time.
public struct OfficeOverviewStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// An outbox's state: waiting to be sent now, of which some already failed at least once,
    /// and given up on (dead) in the last day.
    public struct Outbox: Sendable, Equatable {
        public var queued: Int
        public var retrying: Int
        public var deadToday: Int
    }

    public struct Health: Sendable, Equatable {
        public var mail: Outbox
        public var webhooks: Outbox
        public var slack: Outbox
        public var push: Outbox
        /// Devices used in the last 30 days that have not synced for over a day.
        public var devicesNotSynced: Int
        /// 5xx answers in the last hour, summed over every instance's samples.
        public var serverErrorsLastHour: Int
    }

    public struct Work: Sendable, Equatable {
        /// Status open (not in progress): what the Work list shows for status "open".
        public var openTasks: Int
        /// Open or in progress, due before now.
        public var overdueTasks: Int
        public var unclaimedUrgentTasks: Int
        /// Activities due today (UTC), and of those, done.
        public var activitiesToday: Int
        public var activitiesDoneToday: Int
    }

    public func health() throws -> Health {
        func outbox(_ table: String) -> PostgresQuery {
            """
            SELECT count(*) FILTER (WHERE sent_at IS NULL AND dead_at IS NULL),
                   count(*) FILTER (WHERE sent_at IS NULL AND dead_at IS NULL AND attempts > 0),
                   count(*) FILTER (WHERE dead_at > now() - interval '1 day')
            FROM \(unsafeSQL: table) WHERE (sent_at IS NULL AND dead_at IS NULL) OR dead_at > now() - interval '1 day'
            """
        }
        func read(_ table: String) throws -> Outbox {
            guard let row = try pool.query(outbox(table)).first else { return Outbox(queued: 0, retrying: 0, deadToday: 0) }
            return Outbox(queued: try row.decode(0), retrying: try row.decode(1), deadToday: try row.decode(2))
        }
        let devices = try pool.query("""
            SELECT count(*) FROM sync_device_health
            WHERE last_seen_at > now() - interval '30 days' AND coalesce(last_sync_at, first_seen_at) < now() - interval '1 day'
            """).first.map { try $0.decode(0, as: Int.self) } ?? 0
        let errors = try pool.query("""
            SELECT coalesce(sum(errors), 0)::bigint FROM server_instance_samples WHERE minute >= now() - interval '1 hour'
            """).first.map { try $0.decode(0, as: Int.self) } ?? 0
        return Health(mail: try read("mail_outbox"), webhooks: try read("webhook_deliveries"), slack: try read("slack_outbox"),
                      push: try read("push_outbox"), devicesNotSynced: devices, serverErrorsLastHour: errors)
    }

    public func work() throws -> Work {
        let tasks = try pool.query("""
            SELECT count(*) FILTER (WHERE status = 'open'),
                   count(*) FILTER (WHERE due_date < now()),
                   count(*) FILTER (WHERE status = 'open' AND claimed_by IS NULL AND priority = 'urgent')
            FROM tasks WHERE status IN ('open', 'in_progress')
            """).first
        let activities = try pool.query("""
            SELECT count(*), count(*) FILTER (WHERE status = 'completed') FROM activities
            WHERE status <> 'deleted' AND due_date >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
              AND due_date < (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'
            """).first
        return Work(openTasks: try tasks?.decode(0) ?? 0, overdueTasks: try tasks?.decode(1) ?? 0,
                    unclaimedUrgentTasks: try tasks?.decode(2) ?? 0, activitiesToday: try activities?.decode(0) ?? 0,
                    activitiesDoneToday: try activities?.decode(1) ?? 0)
    }
}
