import Foundation

/// When a failed delivery is tried again: the Standard Webhooks example schedule, 10 attempts
/// over about three days — at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h
/// and 24 h (75 h 35 min in all) — each wait with ±20 % jitter so the retries of many
/// deliveries (and instances) after an outage do not arrive in one burst. A `Retry-After`
/// the receiver sent is honoured when it asks for longer than the schedule (capped at a day).
package struct WebhookRetrySchedule: Sendable {
    package static let standard: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18_000), .seconds(36_000),
        .seconds(50_400), .seconds(72_000), .seconds(86_400),
    ]
    static let longestRetryAfter: Duration = .seconds(86_400)

    /// The waits after the 1st, 2nd, … failed attempt; attempts = waits + 1.
    package var waits: [Duration]

    package init(waits: [Duration] = WebhookRetrySchedule.standard) {
        self.waits = waits
    }

    package var maxAttempts: Int { waits.count + 1 }

    /// The wait after failed attempt `attempt` (1-based); nil when the attempts are used up.
    package func wait(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
        guard attempt >= 1, attempt <= waits.count else { return nil }
        let base = waits[attempt - 1]
        let jittered = Duration.milliseconds(Int64(Double(base.components.seconds * 1000
                                                          + base.components.attoseconds / 1_000_000_000_000_000)
                                                   * Double.random(in: 0.8...1.2)))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.longestRetryAfter))
    }
}
