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

    private struct Mailbox {
        var messages: [Message] = []
        var closed = false
    }

    private let mailbox = Mutex(Mailbox())
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

    // MARK: Any thread

    /// Hands a message to the loop and wakes it (the eventfd is written only when the mailbox
    /// was empty: one wakeup per batch).
    func post(_ message: Message) {
        mailbox.withLock { box in
            guard !box.closed else {
                if case .reply(_, .deferred(let completion)) = message { completion.cancel() }
                if case .reply(_, .streamed(let stream)) = message { stream.cancel() }
                return
            }
            box.messages.append(message)
            if box.messages.count == 1 {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8) // inside the lock: the fd cannot be closed underneath us
            }
        }
    }

    /// Closes the wakeup fd under the mailbox lock (so `post` never writes to a stale fd) and
    /// returns the messages nobody will process.
    func closeMailbox() -> [Message] {
        mailbox.withLock { box in
            box.closed = true
            close(wakeFD)
            let taken = box.messages
            box.messages = []
            return taken
        }
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

    private func handle(_ flags: UInt32, on record: ConnectionRecord, buffer: UnsafeMutableRawBufferPointer) {
        if flags & EPOLLERR.rawValue != 0 { return closeConnection(record) }
        if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0 {
            guard read(record, buffer: buffer, flags: flags) else { return }
        }
        service(record)
    }

    /// One read. Returns false if the connection was closed.
    private func read(_ record: ConnectionRecord, buffer: UnsafeMutableRawBufferPointer, flags: UInt32) -> Bool {
        if !record.machine.wantsRead && !record.machine.lingering {
            // Not reading (busy with a full buffer, or the peer already half-closed): RDHUP/HUP
            // only tell us the peer is gone. (EPOLLIN can still show up here from an event
            // reported before interest changed; it means nothing now.)
            guard flags & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0 else { return true }
            if flags & EPOLLHUP.rawValue != 0 || record.deferred != nil
                || (!record.machine.peerClosed && record.machine.receivedEOF()) {
                closeConnection(record)
                return false
            }
            return true
        }
        let received = recv(record.fd, buffer.baseAddress, buffer.count, 0)
        if received > 0, let session = record.webSocket, session.isDecoding {
            receiveWebSocket(UnsafeRawBufferPointer(rebasing: buffer[..<received]), on: record, session: session)
            return true
        }
        if received > 0 {
            if let dispatch = record.machine.receive(UnsafeRawBufferPointer(rebasing: buffer[..<received]), env: env) {
                self.dispatch(dispatch, on: record)
            }
            return true
        }
        if received == 0 {
            if record.deferred != nil || record.machine.receivedEOF() {
                closeConnection(record)
                return false
            }
            return true
        }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
        closeConnection(record)
        return false
    }

    /// Writes what is queued, half-closes finished connections, and re-arms epoll interest.
    func service(_ record: ConnectionRecord) {
        while record.machine.hasPendingOutput {
            let sent = record.machine.withPendingOutput { pending in
                send(record.fd, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                record.machine.didWrite(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return closeConnection(record)
            }
        }
        if let stream = record.stream { noteStreamProgress(record, stream) }
        if let session = record.webSocket { noteWebSocketProgress(record, session) }
        if let next = record.machine.resumeParsingIfPossible(env: env) {
            dispatch(next, on: record)
            return service(record)
        }
        if (shuttingDown && record.machine.isIdle) || record.machine.finishedAfterPeerClose {
            return closeConnection(record)
        }
        if record.machine.readyToLinger {
            if record.machine.peerClosed { return closeConnection(record) }
            shutdown(record.fd, Int32(SHUT_WR))
            record.machine.startLingering(env: env)
        }
        var wanted: UInt32 = 0
        if record.machine.wantsRead || record.machine.lingering {
            wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        } else if !record.machine.peerClosed {
            wanted |= EPOLLRDHUP.rawValue // still notice a disconnect while busy (cancels deferred)
        }
        if record.machine.hasPendingOutput { wanted |= EPOLLOUT.rawValue }
        if wanted != record.interest {
            record.interest = wanted
            var event = epoll_event()
            event.events = wanted
            event.data.u64 = record.id
            epoll_ctl(epollFD, EPOLL_CTL_MOD, record.fd, &event)
        }
    }

    func dispatch(_ dispatch: ConnectionStateMachine.Dispatch, on record: ConnectionRecord) {
        record.requestInFlight = true
        counters.inFlight.add(1, ordering: .relaxed)
        counters.requests.add(1, ordering: .relaxed)
        let id = record.id
        let address = record.remoteAddress
        let chain = chain
        let logger = logger
        // The request's one route match: here, because it decides which thread runs it.
        let route = chain.responder.route(for: dispatch.request)
        let job: @Sendable () -> Void = { [self] in
            var context = RequestContext(requestID: dispatch.requestID,
                                         query: QueryParameters(parsing: dispatch.request.query),
                                         logger: logger, remoteAddress: address)
            context.route = route
            var reply: HandlerReply
            do {
                reply = try chain.run(dispatch.request, context)
            } catch {
                reply = .response(ErrorMiddleware.render(error, context: context))
            }
            if case .webSocket(let handler) = reply {
                switch WebSocketUpgrade.resolve(handler, request: dispatch.request, logger: context.logger) {
                case .success(let upgrade): return self.post(.upgrade(id, upgrade))
                case .failure(let error): reply = .response(error.response)
                }
            }
            // Through the mailbox even when run inline: delivering here could dispatch the next
            // pipelined request recursively, without bound.
            self.post(.reply(id, reply))
        }
        if route?.runsOnEventLoop == true { job() } else { workers.submit(job) }
    }

    func deliver(_ response: HTTPResponse, to record: ConnectionRecord) {
        guard record.requestInFlight else { return }
        record.requestInFlight = false
        counters.inFlight.subtract(1, ordering: .relaxed)
        if let next = record.machine.respond(response, env: env) { dispatch(next, on: record) }
        service(record)
    }

    private func drainMailbox() {
        var value: UInt64 = 0
        _ = Glibc.read(wakeFD, &value, 8) // before taking messages, so no wakeup is lost
        let messages = mailbox.withLock { box in
            let taken = box.messages
            box.messages.removeAll(keepingCapacity: true)
            return taken
        }
        for message in messages {
            switch message {
            case .reply(let id, .response(let response)):
                if let record = connections[id] { deliver(response, to: record) }
            case .reply(let id, .deferred(let completion)):
                guard let record = connections[id], !shuttingDown else {
                    completion.cancel()
                    if let record = connections[id] { deliverShuttingDown(to: record) }
                    continue
                }
                record.deferred = completion
                let early = completion.bind { [weak self] response in self?.post(.deferredResponse(id, response)) }
                if let early {
                    record.deferred = nil
                    deliver(early, to: record)
                } else if record.machine.peerClosed {
                    closeConnection(record) // the client left before the handler parked: cancel
                }
            case .reply(let id, .streamed(let stream)):
                guard let record = connections[id], !shuttingDown else {
                    stream.cancel()
                    if let record = connections[id] { deliverShuttingDown(to: record) }
                    continue
                }
                startStream(stream, on: record)
            case .stream(let id, let event):
                handleStreamEvent(event, id: id)
            case .reply(let id, .webSocket):
                // Never posted (the dispatch job turns it into `.upgrade` or an error); defensive.
                if let record = connections[id] { deliver(HTTPError.internalError.response, to: record) }
            case .upgrade(let id, let upgrade):
                guard let record = connections[id] else { continue }
                if shuttingDown { deliverShuttingDown(to: record) } else { startWebSocket(upgrade, on: record) }
            case .webSocket(let id, let command):
                handleWebSocketCommand(command, id: id)
            case .deferredResponse(let id, let response):
                if let record = connections[id] {
                    record.deferred = nil
                    deliver(response, to: record)
                }
            case .shutdown(let grace):
                beginShutdown(grace: grace)
            }
        }
    }

    func deliverShuttingDown(to record: ConnectionRecord) {
        guard record.requestInFlight else { return }
        record.requestInFlight = false
        counters.inFlight.subtract(1, ordering: .relaxed)
        record.machine.respondShuttingDown(env: env)
        service(record)
    }

    func register(_ fd: Int32, id: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
    }
}
