import Foundation

/// Where threads and serial queues are made outside `BackgroundLoop`, `HTTPServer` and
/// `Postgres`: one place to find every thread the server starts, named so that a stack dump,
/// `top -H` or a profile says whose it is.
package enum BackgroundThread {
    /// Starts a thread named `name` that runs `body` once; the owner decides when `body` ends.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    /// A serial queue named `label`: work on it runs in order, one item at a time.
    package static func serialQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label)
    }
}
