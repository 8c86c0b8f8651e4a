import Foundation

/// How wake-ups are paced. The rule (docs/operators/push.md):
///   * a device gets at most one pending wake-up, whatever number of changes reach it;
///   * an ordinary change wakes it no sooner than `minInterval` after its last push;
///   * an urgent change (a claim or release of the user's work, a claim handed to them, an
///     urgent task or activity on their listing: `dispatch_push_reasons`) wakes it at once;
///   * a wake-up owed for longer than `staleAfter` is dropped, not sent late.
package struct PushPolicy: Sendable {
    /// PUSH_MIN_INTERVAL. Apple: background pushes beyond "two or three per hour" are
    /// throttled, so the default spends at most three per hour on ordinary changes and leaves
    /// the urgent ones to go through at once.
    package var minInterval: Duration = .seconds(20 * 60)
    /// A wake-up this much past its due time is worthless: the phone will sync on its own.
    package var staleAfter: Duration = .seconds(5 * 60)
    package var batchSize = 50
    /// How long a claim holds a wake-up: far longer than one send (the client's timeout).
    package var lease: Duration = .seconds(60)
    package var pollInterval: Duration = .seconds(1)
    /// 429 `TooManyRequests`: that device waits at least this long.
    package var tooManyRequestsBackoff: Duration = .seconds(60)
    package var countsInterval: Duration = .seconds(15)
    /// Finished outbox rows are deleted after this long.
    package var retention: Duration = .seconds(7 * 86_400)

    package init() {}

    /// 5xx and network failures: 2, 4, 8 … seconds, at most a minute (staleness ends it).
    package func retryWait(afterAttempt attempt: Int) -> Duration {
        .seconds(min(60, 1 << min(max(attempt, 1), 6)))
    }
}
