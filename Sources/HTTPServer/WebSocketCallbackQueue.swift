import Synchronization

/// Runs one connection's handler callbacks on the worker pool, one at a time and in order
/// (handlers may block on the database, so never on the event loop; serial, so a handler
/// needs no locking of its own). No thread is tied to the connection: a drain job is
/// submitted only while callbacks are waiting, and gives its worker back every few callbacks.
///
/// Inbound backpressure: bytes of received messages not yet handled are counted; above
/// `pauseAbove` the loop stops reading the socket (TCP then slows the client down) until the
/// handler has worked through half of them.
final class WebSocketCallbackQueue: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var jobs: [(job: Job, bytes: Int)] = []
        var head = 0
        var scheduled = false
        var pendingBytes = 0
        var readPaused = false
    }

    private let state = Mutex(State())
    private let workers: WorkerPool
    private let pauseAbove: Int
    private let outstanding: Counters
    private let resume: @Sendable () -> Void

    /// `resume` is called (from a worker) when reading may start again after a pause.
    init(workers: WorkerPool, pauseAbove: Int, counters: Counters, resume: @escaping @Sendable () -> Void) {
        self.workers = workers
        self.pauseAbove = pauseAbove
        self.outstanding = counters
        self.resume = resume
    }

    /// Queues a callback; `bytes` is the size of the message it carries. Returns true when
    /// the loop should stop reading for now.
    @discardableResult
    func enqueue(bytes: Int = 0, _ job: @escaping Job) -> Bool {
        outstanding.webSocketCallbacks.add(1, ordering: .relaxed)
        let (schedule, pause) = state.withLock { state -> (Bool, Bool) in
            state.jobs.append((job, bytes))
            state.pendingBytes += bytes
            if state.pendingBytes > pauseAbove { state.readPaused = true }
            let schedule = !state.scheduled
            state.scheduled = true
            return (schedule, state.readPaused)
        }
        if schedule { workers.submit { [self] in drain() } }
        return pause
    }

    private func drain() {
        for _ in 0..<32 {
            let next = state.withLock { state -> (job: Job, bytes: Int)? in
                guard state.head < state.jobs.count else {
                    state.jobs.removeAll(keepingCapacity: false)
                    state.head = 0
                    state.scheduled = false
                    return nil
                }
                let next = state.jobs[state.head]
                state.head += 1
                return next
            }
            guard let next else { return }
            next.job()
            outstanding.webSocketCallbacks.subtract(1, ordering: .relaxed)
            let resumeNow = state.withLock { state -> Bool in
                state.pendingBytes -= next.bytes
                guard state.readPaused, state.pendingBytes <= pauseAbove / 2 else { return false }
                state.readPaused = false
                return true
            }
            if resumeNow { resume() }
        }
        workers.submit { [self] in drain() } // still scheduled: let other connections' work in
    }
}
