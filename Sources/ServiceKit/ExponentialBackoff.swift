import Foundation
import Postgres

/// The wait before the next attempt after a failure: `initial` × 2^(attempt-1), capped at
/// `maximum`, with ±20 % jitter so the instances' retries after an outage do not arrive at a
/// recovering peer in one burst.
package struct ExponentialBackoff: Sendable, Equatable {
    package var initial: Duration
    package var maximum: Duration

    package init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    package func delay(afterAttempt attempt: Int) -> Duration {
        let base = initial.timeInterval * pow(2, Double(min(max(attempt - 1, 0), 30)))
        return .milliseconds(Int64(min(base, maximum.timeInterval) * Double.random(in: 0.8...1.2) * 1000))
    }
}
