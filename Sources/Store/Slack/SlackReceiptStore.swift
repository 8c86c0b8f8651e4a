import Domain
import Foundation
import Postgres

/// Receipts of Slack requests that created a task (`slack_receipts`), written in the task's
/// transaction: a retry or replay of the same request finds the receipt and creates nothing.
public struct SlackReceiptStore: Sendable {
    public init() {}

    /// Takes the request's key on the caller's transaction: true when it is new (go on and
    /// create), false when an earlier request holds it. A concurrent twin waits here on the
    /// unique index until the first commits, then sees it.
    public func take(_ key: String, on connection: PostgresConnection) throws -> Bool {
        // The task id is filled in by `complete` in the same transaction.
        try connection.execute("""
            INSERT INTO slack_receipts (request_key) VALUES (\(key))
            ON CONFLICT (request_key) DO NOTHING
            """) == 1
    }

    public func complete(_ key: String, taskID: UUID, on connection: PostgresConnection) throws {
        try connection.execute("UPDATE slack_receipts SET task_id = \(taskID) WHERE request_key = \(key)")
    }

    /// The task an earlier request with this key created.
    public func task(for key: String, on connection: PostgresConnection) throws -> UUID? {
        guard let row = try connection.query("SELECT task_id FROM slack_receipts WHERE request_key = \(key)").first else { return nil }
        return try row.decode("task_id", as: UUID?.self)
    }
}
