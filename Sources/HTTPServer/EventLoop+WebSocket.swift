import HTTP1

/// Upgraded connections on the loop: the switch from HTTP, frames in, commands from other
/// threads, timers, and the close handshake. Threading: the loop decodes and writes; every
/// `WebSocketHandler` callback runs on the worker pool, serialized per connection
/// (`WebSocketCallbackQueue`); `WebSocketOutbound` calls from any thread post here.
extension EventLoop {
    /// The handler's reply after the handshake passed: 101, then frames.
    func startWebSocket(_ upgrade: WebSocketUpgrade, on record: ConnectionRecord) {
        guard record.requestInFlight, record.webSocket == nil else { return }
        record.requestInFlight = false
        counters.inFlight.subtract(1, ordering: .relaxed)
        let leftover = record.machine.upgrade(accept: upgrade.accept, env: env)
        guard record.machine.phase == .upgraded, !record.machine.peerClosed else {
            return closeConnection(record) // the client left while the route ran
        }
        let id = record.id
        let settings = webSocketSettings
        let sender = WebSocketSender(limit: settings.sendQueueBytes, counters: counters) { [weak self] command in
            self?.post(.webSocket(id, command))
        }
        let callbacks = WebSocketCallbackQueue(workers: workers, pauseAbove: max(settings.maxMessageBytes, 64 * 1024),
                                               counters: counters) { [weak self] in
            self?.post(.webSocket(id, .resumeReading))
        }
        let session = WebSocketSession(handler: upgrade.handler, sender: sender, callbacks: callbacks,
                                       limits: settings.decoderLimits, logger: upgrade.logger, now: env.now)
        record.webSocket = session
        upgrade.logger.info("websocket opened", metadata: ["client_address": .string(record.remoteAddress)])
        counters.webSockets.add(1, ordering: .relaxed)
        let handler = upgrade.handler
        callbacks.enqueue { handler.opened(sender) }
        if !leftover.isEmpty {
            leftover.withUnsafeBytes { receiveWebSocket($0, on: record, session: session) }
        }
        service(record)
    }

    /// Bytes from the socket of an upgraded connection.
    func receiveWebSocket(_ bytes: UnsafeRawBufferPointer, on record: ConnectionRecord, session: WebSocketSession) {
        session.lastInputAt = env.now
        session.pingSentAt = nil
        var offset = 0
        while session.isDecoding {
            let result = session.decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if session.framesInWindow(now: env.now) > webSocketSettings.maxFramesPerSecond {
                return failWebSocket(record, session, code: .policyViolation, reason: "too many frames per second")
            }
            switch result {
            case .needMore:
                return
            case .failure(let failure):
                return failWebSocket(record, session, code: WebSocketCloseCode(rawValue: failure.closeCode),
                                     reason: failure.reason)
            case .event(let event, let consumed):
                offset += consumed
                handleWebSocketEvent(event, on: record, session: session)
            }
        }
    }

    private func handleWebSocketEvent(_ event: WebSocketEvent, on record: ConnectionRecord, session: WebSocketSession) {
        switch event {
        case .text(let bytes):
            guard session.state == .open else { return } // after our close frame: discarded (§5.5.1)
            session.lastMessageAt = env.now
            let handler = session.handler
            let pause = session.callbacks.enqueue(bytes: bytes.count) {
                handler.received(text: String(decoding: bytes, as: UTF8.self))
            }
            if pause { record.machine.inputPaused = true }
        case .binary(let bytes):
            guard session.state == .open else { return }
            session.lastMessageAt = env.now
            let handler = session.handler
            let pause = session.callbacks.enqueue(bytes: bytes.count) { handler.received(binary: bytes) }
            if pause { record.machine.inputPaused = true }
        case .ping(let payload):
            guard session.state == .open else { return }
            queueControlFrame(WebSocketFrameEncoder.frame(.pong, payload: payload), on: record, session: session)
        case .pong:
            break // any input already reset the heartbeat
        case .close(let code, _):
            if session.closeCode == nil { session.closeCode = WebSocketCloseCode(rawValue: code ?? 1005) }
            if session.state == .open {
                // Echo the peer's code (§5.5.1); an empty close is answered empty.
                record.machine.appendOutput(WebSocketFrameEncoder.closeFrame(code: code),
                                            env: env)
            }
            finishWebSocket(record, session)
        }
    }

    /// A control frame of ours (pong, ping). A client that leaves more than the send-queue
    /// bound unread is too slow: 1008.
    private func queueControlFrame(_ frame: [UInt8], on record: ConnectionRecord, session: WebSocketSession) {
        if record.machine.pendingOutputCount + frame.count > webSocketSettings.sendQueueBytes {
            return failWebSocket(record, session, code: .policyViolation, reason: "the client is reading too slowly")
        }
        record.machine.appendOutput(frame, env: env)
    }

    /// Fails the connection (§7.1.7): our close frame, then the TCP close; no waiting for the
    /// client's reply (lingering still drains it).
    func failWebSocket(_ record: ConnectionRecord, _ session: WebSocketSession, code: WebSocketCloseCode, reason: String) {
        if session.state == .open {
            session.closeCode = code
            record.machine.appendOutput(WebSocketFrameEncoder.closeFrame(code: code.rawValue, reason: reason), env: env)
        }
        finishWebSocket(record, session)
    }

    /// Starts the close handshake: our close frame, then wait `closeTimeout` for the client's.
    func closeWebSocket(_ record: ConnectionRecord, _ session: WebSocketSession, code: WebSocketCloseCode, reason: String) {
        guard session.state == .open else { return }
        // 1005/1006/1015 and unassigned codes must never be sent (§7.4.1): a handler bug → 1011.
        let code = WebSocketFrameDecoder.isValidReceivedCloseCode(code.rawValue) ? code : .internalError
        session.closeCode = code
        session.sender.markClosed()
        record.machine.appendOutput(WebSocketFrameEncoder.closeFrame(code: code.rawValue, reason: reason), env: env)
        session.state = .closeSent(deadline: env.now + webSocketSettings.closeTimeout.nanoseconds)
    }

    /// The handshake is over (or failed): the handler hears it now; the connection is an
    /// ordinary closing one from here (flush, half-close, linger, close — the HTTP way).
    private func finishWebSocket(_ record: ConnectionRecord, _ session: WebSocketSession) {
        record.webSocket = nil
        webSocketClosed(session)
        record.machine.inputPaused = false
        record.machine.enterClosing()
    }

    /// A command posted by another thread (`WebSocketSender`, `WebSocketCallbackQueue`).
    func handleWebSocketCommand(_ command: WebSocketCommand, id: UInt64) {
        let record = connections[id]
        let session = record?.webSocket
        switch command {
        case .send(let frame):
            session?.sender.tookFromMailbox(frame.count)
            guard let record, let session, session.state == .open else { return }
            record.machine.appendOutput(frame, env: env)
        case .close(let code, let reason):
            guard let record, let session else { return }
            closeWebSocket(record, session, code: code, reason: reason)
        case .resumeReading:
            guard let record, session != nil, record.machine.phase == .upgraded else { return }
            record.machine.inputPaused = false
        }
        if let record { service(record) }
    }

    /// The timers of an upgraded connection, from `scanTimers`.
    func tickWebSocket(_ record: ConnectionRecord, _ session: WebSocketSession) {
        let settings = webSocketSettings
        switch session.state {
        case .open:
            if env.now - session.lastMessageAt >= settings.idleTimeout.nanoseconds {
                closeWebSocket(record, session, code: .normal, reason: "idle timeout")
            } else if let ping = session.pingSentAt {
                if env.now - ping >= settings.pongTimeout.nanoseconds {
                    failWebSocket(record, session, code: .goingAway, reason: "heartbeat timeout")
                }
            } else if env.now - session.lastInputAt >= settings.pingInterval.nanoseconds {
                session.pingSentAt = env.now
                queueControlFrame(WebSocketFrameEncoder.frame(.ping, payload: [UInt8]()), on: record, session: session)
            }
        case .closeSent(let deadline):
            if env.now >= deadline { return closeConnection(record) }
        case .finished:
            return
        }
        service(record)
    }

    /// After each write attempt: the sender's bound counts what the socket has not taken.
    func noteWebSocketProgress(_ record: ConnectionRecord, _ session: WebSocketSession) {
        record.machine.streamMadeProgress(env: env)
        session.sender.socketPending(record.machine.pendingOutputCount)
    }

    /// The WebSocket is over (handshake done, failed, or the socket closed): the handler
    /// hears it once, after the messages received before it.
    func webSocketClosed(_ session: WebSocketSession) {
        session.state = .finished
        session.sender.release()
        counters.webSockets.subtract(1, ordering: .relaxed)
        let handler = session.handler
        let code = session.closeCode
        session.callbacks.enqueue { handler.closed(code: code) }
        let seconds = Double((env.now - session.openedAt) / 1_000_000) / 1000
        session.logger.info("websocket closed", metadata: [
            "close_code": .string(code.map { String($0.rawValue) } ?? "none"), "duration_s": .stringConvertible(seconds),
        ])
    }
}
