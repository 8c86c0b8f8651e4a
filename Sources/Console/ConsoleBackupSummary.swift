import Foundation

/// What the overview says about backups: the newest backup the server can see and whether it
/// was verified. The executable fills it (it owns the backup files and the schedule) through
/// `ConsoleServerFacts.backups`, a closure, so a richer backup record can supply it later
/// without the console changing.
package struct ConsoleBackupSummary: Sendable, Equatable {
    /// The newest backup file's name, when it was written, and its size.
    package var latestName: String?
    package var latestAt: Date?
    package var latestBytes: Int?
    /// Whether the newest backup was restored into a scratch database and matched its manifest;
    /// nil when no verification is recorded.
    package var verified: Bool?
    package var verifiedAt: Date?
    /// Whether this process's last scheduled attempt failed (the reason is in its log).
    package var lastAttemptFailed: Bool
    /// Whether the server takes a backup each day (BACKUP_DAILY).
    package var scheduled: Bool

    package init(latestName: String? = nil, latestAt: Date? = nil, latestBytes: Int? = nil, verified: Bool? = nil,
                 verifiedAt: Date? = nil, lastAttemptFailed: Bool = false, scheduled: Bool = false) {
        self.latestName = latestName
        self.latestAt = latestAt
        self.latestBytes = latestBytes
        self.verified = verified
        self.verifiedAt = verifiedAt
        self.lastAttemptFailed = lastAttemptFailed
        self.scheduled = scheduled
    }
}
