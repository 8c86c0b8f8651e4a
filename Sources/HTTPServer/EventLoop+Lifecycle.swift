import CLinuxSys
import Glibc
import HTTP1

/// Accepting, timers, shutdown and closing — the loop's connection lifecycle.
extension EventLoop {
    /// Connections taken per readiness of the listener. The listener is level-triggered, so what
    /// is left is taken on the next turn, after the loop has served the events of established
    /// connections: a reconnect storm waits in the kernel's queue (`ListenBacklog`), sized for
    /// it, instead of starving the clients already connected.
    static let acceptBatch = 128

    /// Accepts up to `acceptBatch` queued connections; how many it took.
    @discardableResult
    func acceptConnections() -> Int {
        var taken = 0
        for _ in 0..<Self.acceptBatch {
            guard let (fd, address) = Socket.accept(listenFD) else {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Level-triggered listener would spin: stop watching it for a moment.
                    logger.warning("accept failed; pausing accepts", metadata: ["errno": "\(code)"])
                    epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil)
                    listenerPausedUntil = env.now + 100_000_000
                }
                return taken
            }
            taken += 1
            let rejected = counters.open.load(ordering: .relaxed) >= maxConnections
            let machine = rejected ? ConnectionStateMachine.rejecting(environment: env)
                                   : ConnectionStateMachine(environment: env)
            let record = ConnectionRecord(id: nextID, fd: fd, remoteAddress: address, machine: machine, rejected: rejected)
            nextID += 1
            connections[record.id] = record
            record.interest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
            register(fd, id: record.id, events: record.interest)
            if rejected {
                counters.rejected.add(1, ordering: .relaxed)
                service(record)
            } else {
                counters.open.add(1, ordering: .relaxed)
                counters.accepted.add(1, ordering: .relaxed)
            }
        }
        return taken
    }

    func scanTimers() {
        if let paused = listenerPausedUntil, env.now >= paused, listenFD >= 0 {
            listenerPausedUntil = nil
            register(listenFD, id: Self.listenerID, events: EPOLLIN.rawValue)
        }
        for record in Array(connections.values) {
            switch record.machine.tick(env: env) {
            case .nothing: if let session = record.webSocket { tickWebSocket(record, session) }
            case .closeNow: closeConnection(record)
            case .respondAndClose: service(record)
            }
        }
    }

    func handleSignal() {
        guard let signalFD else { return }
        var bytes = (UInt64(0), UInt64(0))
        _ = Glibc.read(signalFD, &bytes, 16)
        logger.info("Signal received; shutting down")
        beginShutdown(grace: defaultGrace)
    }

    /// Stop accepting, close idle connections, answer parked (deferred) requests with 503,
    /// start the close handshake (1001) on WebSockets; everything else may finish until the
    /// grace deadline.
    func beginShutdown(grace: Int64) {
        guard !shuttingDown else { return }
        shuttingDown = true
        env.shuttingDown = true
        graceDeadline = env.now + max(0, grace)
        if listenFD >= 0 {
            // Connections the kernel completed before now may already carry a request: closing the
            // listener under them would reset them. They are accepted and served like any
            // connection whose first request is still on its way (below).
            var batches = 0
            while batches < 64, acceptConnections() == Self.acceptBatch { batches += 1 }
            close(listenFD) // new connections are refused from here on
            listenFD = -1
        }
        for record in Array(connections.values) {
            if let completion = record.deferred {
                record.deferred = nil
                completion.cancel()
                deliverShuttingDown(to: record)
            } else if let session = record.webSocket {
                closeWebSocket(record, session, code: .goingAway, reason: "server shutting down")
                service(record)
            } else if record.machine.isIdle && record.hasCarriedRequest {
                // Idle between keep-alive requests: closed now. One that never carried a request
                // is a client that just connected: its request is served (then the connection
                // closes), or the grace deadline ends it.
                closeConnection(record)
            }
        }
    }

    func closeConnection(_ record: ConnectionRecord) {
        guard connections.removeValue(forKey: record.id) != nil else { return }
        close(record.fd) // also removes it from the epoll set
        if let completion = record.deferred {
            record.deferred = nil
            completion.cancel()
        }
        record.stream?.cancel()
        record.stream = nil
        if let session = record.webSocket {
            record.webSocket = nil
            webSocketClosed(session)
        }
        if record.requestInFlight {
            record.requestInFlight = false
            counters.inFlight.subtract(1, ordering: .relaxed)
        }
        if !record.rejected { counters.open.subtract(1, ordering: .relaxed) }
    }

    func tearDown() {
        for record in Array(connections.values) { closeConnection(record) }
        if listenFD >= 0 { close(listenFD); listenFD = -1 }
        let leftovers = closeMailbox()
        for case .reply(_, .deferred(let completion)) in leftovers { completion.cancel() }
        for case .reply(_, .streamed(let stream)) in leftovers { stream.cancel() }
        close(epollFD)
        // Every opened WebSocket handler gets its `closed` call: wait (bounded) for the
        // callbacks just queued before the workers stop taking jobs.
        let patience = ConnectionEnvironment.monotonicNow() + 2_000_000_000
        while counters.webSocketCallbacks.load(ordering: .relaxed) > 0 && ConnectionEnvironment.monotonicNow() < patience {
            usleep(1000)
        }
        workers.stop()
    }
}
