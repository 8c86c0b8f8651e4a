import Foundation

extension Duration {
    /// The duration in seconds, for the Foundation and libc calls that take a `TimeInterval`
    /// (condition waits, sleeps, date arithmetic).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
