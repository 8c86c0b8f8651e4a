import CLinuxSys
import Glibc
import HTTP1
import Logging
import Synchronization

/// The single epoll thread that owns the listening socket and every connection.
///
/// Level-triggered on purpose: each ready connection gets one read of at most 64 KiB per
/// iteration, so a fast sender cannot monopolise the loop (edge-triggered would oblige us to
/// drain every socket to EAGAIN or track "still readable" ourselves), and interest is simply
/// what the state machine wants right now — EPOLLIN while we accept input, EPOLLOUT only while
/// output is queued — so a busy connection never spins the loop.
///
/// Timers: instead of a heap with an entry per deadline change (several per request), every
/// `scanInterval` the loop walks the connections and asks each state machine whether a deadline
/// passed. That is O(connections) a few times per second — ~10k cheap checks — and nothing per
/// request. Deadlines are therefore late by at most one interval (≤ 250 ms, a quarter of the
/// shortest timeout), which is fine for timeouts measured in seconds.
///
/// `@unchecked Sendable`: the mutable state is confined to the loop thread; other threads only
/// touch `mailbox` (a Mutex) via `post`, and the atomic counters.
final class EventLoop: @unchecked Sendable {
    enum Message {
        case reply(UInt64, HandlerReply)
        case deferredResponse(UInt64, HTTPResponse)
        /// From a streamed response's producer (`EventLoop+Streaming`).
        case stream(UInt64, ResponseBodyStream.Event)
        /// A route accepted a WebSocket upgrade and its handshake passed (`EventLoop+WebSocket`).
        case upgrade(UInt64, WebSocketUpgrade)
        /// From a WebSocket's sender or callback queue.
        case webSocket(UInt64, WebSocketCommand)
        case shutdown(grace: Int64)
    }

    static let listenerID: UInt64 = 0
    static let wakeID: UInt64 = 1
    static let signalID: UInt64 = 2
    static let readBufferSize = 64 * 1024

    struct Mailbox {
        var messages: [Message] = []
        var closed = false
    }

    /// Messages from other threads (`EventLoop+Mailbox`).
    let mailbox = Mutex(Mailbox())
    let wakeFD: Int32
    let epollFD: Int32
    let counters = Counters()

    // Loop-confined state.
    var listenFD: Int32
    let signalFD: Int32?
    var connections: [UInt64: ConnectionRecord] = [:]
    var nextID: UInt64 = 16
    let env: ConnectionEnvironment
    let chain: MiddlewareChain
    let workers: WorkerPool
    let logger: Logger
    let maxConnections: Int
    let defaultGrace: Int64
    let scanInterval: Int64
    let webSocketSettings: WebSocketConfiguration
    var nextScan: Int64 = 0
    var listenerPausedUntil: Int64?
    var shuttingDown = false
    var graceDeadline: Int64 = .max

    init(listenFD: Int32, signalFD: Int32?, configuration: HTTPServerConfiguration, chain: MiddlewareChain,
         logger: Logger) throws {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw HTTPServerError.systemCall("epoll_create1", errno: errno) }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            close(epollFD)
            throw HTTPServerError.systemCall("eventfd", errno: errno)
        }
        self.listenFD = listenFD
        self.signalFD = signalFD
        self.chain = chain
        self.logger = logger
        self.maxConnections = configuration.maxConnections
        self.defaultGrace = configuration.shutdownGracePeriod.nanoseconds
        let c = configuration
        let shortest = min(c.headerReadTimeout, c.bodyReadTimeout, c.idleTimeout, c.writeTimeout,
                           c.webSocket.shortestTimer).nanoseconds
        webSocketSettings = c.webSocket
        scanInterval = min(max(shortest / 4, 10_000_000), 250_000_000)
        env = ConnectionEnvironment(
            timeouts: .init(header: c.headerReadTimeout.nanoseconds, body: c.bodyReadTimeout.nanoseconds,
                            idle: c.idleTimeout.nanoseconds, write: c.writeTimeout.nanoseconds,
                            linger: min(c.writeTimeout.nanoseconds, 2_000_000_000)),
            limits: c.limits)
        workers = WorkerPool(count: c.workerCount, name: "http-worker")
        register(listenFD, id: Self.listenerID, events: EPOLLIN.rawValue)
        register(wakeFD, id: Self.wakeID, events: EPOLLIN.rawValue)
        if let signalFD { register(signalFD, id: Self.signalID, events: EPOLLIN.rawValue) }
    }

    // MARK: Loop thread

    func run() {
        let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        defer { readBuffer.deallocate() }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        env.now = ConnectionEnvironment.monotonicNow()
        nextScan = env.now + scanInterval
        while true {
            let waitMs = Int32(clamping: max(1, (nextScan - env.now + 999_999) / 1_000_000))
            let count = epoll_wait(epollFD, &events, Int32(events.count), waitMs)
            env.now = ConnectionEnvironment.monotonicNow()
            if count < 0 && errno != EINTR {
                logger.critical("epoll_wait failed", metadata: ["errno": "\(errno)"])
                break
            }
            for index in 0..<max(0, Int(count)) {
                let event = events[index]
                switch event.data.u64 {
                case Self.listenerID: acceptConnections()
                case Self.wakeID: drainMailbox()
                case Self.signalID: handleSignal()
                case let id:
                    if let record = connections[id] { handle(event.events, on: record, buffer: readBuffer) }
                }
            }
            if env.now >= nextScan {
                scanTimers()
                nextScan = env.now + scanInterval
            }
            if shuttingDown && (connections.isEmpty || env.now >= graceDeadline) { break }
        }
        tearDown()
    }

    func register(_ fd: Int32, id: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
    }
}
