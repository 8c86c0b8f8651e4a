import Foundation
import Synchronization

/// A fixed set of threads running handler jobs, so blocking handlers (libpq) never run on the
/// event loop and at most `count` of them block at once. FIFO; unbounded queue (the number of
/// queued jobs is bounded by open connections, since each has at most one request in flight).
/// Also used outside the server for work that must not occupy HTTP workers (password hashing).
public final class WorkerPool: Sendable {
    public typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    public let count: Int

    public init(count: Int, name: String) {
        self.count = max(1, count)
        for index in 0..<self.count {
            let thread = Thread { [self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    public func submit(_ job: @escaping Job) {
        queue.withLock { $0.jobs.append(job) }
        available.signal()
    }

    /// Lets every worker exit after the job it is running; queued jobs are dropped.
    public func stop() {
        queue.withLock { $0.stopped = true }
        for _ in 0..<count { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            let job: Job? = queue.withLock { queue in
                if queue.stopped { return nil }
                guard queue.head < queue.jobs.count else { return {} }
                let job = queue.jobs[queue.head]
                queue.head += 1
                if queue.head == queue.jobs.count {
                    queue.jobs.removeAll(keepingCapacity: true)
                    queue.head = 0
                } else if queue.head > 1024 && queue.head * 2 > queue.jobs.count {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                }
                return job
            }
            guard let job else { return }
            job()
        }
    }
}
