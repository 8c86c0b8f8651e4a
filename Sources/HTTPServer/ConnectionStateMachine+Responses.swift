import HTTP1

/// Answers: the handler's response for the in-flight request with the server-owned headers,
/// then keep-alive (parse the next pipelined request, unless the client is behind on reading)
/// or closing; the switch to WebSocket; the 503 of a shutdown.
extension ConnectionStateMachine {
    /// The handler's response for the in-flight request. May return the next pipelined request.
    mutating func respond(_ response: HTTPResponse, env: ConnectionEnvironment) -> Dispatch? {
        guard phase == .awaitingResponse, let inFlight = current, streaming == nil else { return nil }
        current = nil
        let (response, keepAlive) = finalHeaders(response, for: inFlight, env: env)
        appendOutput(Self.wireBytes(response, omitBody: inFlight.isHead), env: env)
        return continueAfterResponse(keepAlive: keepAlive, env: env)
    }

    /// The server-owned headers of a response: `Date`, `X-Request-Id`, and `Connection`, from
    /// whether the connection stays open after it.
    func finalHeaders(_ response: HTTPResponse, for inFlight: InFlight,
                      env: ConnectionEnvironment) -> (HTTPResponse, keepAlive: Bool) {
        // The server owns Date, X-Request-Id, Connection and Content-Length; a handler may only
        // ask for `Connection: close`. Checked without allocating: this runs for every response.
        let handlerSetConnection = response.headers.fields.contains {
            HTTPResponseEncoder.asciiCaseInsensitiveEquals($0.name, "connection")
        }
        let keepAlive = inFlight.keepAlive && !env.shuttingDown && !(peerClosed && !hasBufferedInput)
            && !(handlerSetConnection && response.headers.containsToken("close", in: "Connection"))
        var response = response
        if handlerSetConnection { response.headers.remove(name: "Connection") }
        response.headers.add(name: "Date", value: env.date)
        response.headers.add(name: "X-Request-Id", value: inFlight.requestID)
        if !keepAlive {
            response.headers.add(name: "Connection", value: "close")
        } else if inFlight.version == .http10 {
            response.headers.add(name: "Connection", value: "keep-alive")
        }
        return (response, keepAlive)
    }

    /// After a response is fully queued: close, or read the next (possibly pipelined) request.
    mutating func continueAfterResponse(keepAlive: Bool, env: ConnectionEnvironment) -> Dispatch? {
        guard keepAlive else {
            enterClosing()
            return nil
        }
        phase = .readingHead
        requestStarted = false
        readDeadline = env.now + env.timeouts.idle
        if pendingOutputCount >= Self.maxPendingOutput {
            parsingPaused = true
            return nil
        }
        return hasBufferedInput ? parseInbox(env: env) : nil
    }

    /// Called after writes: resumes parsing pipelined input once the client caught up.
    mutating func resumeParsingIfPossible(env: ConnectionEnvironment) -> Dispatch? {
        guard parsingPaused, pendingOutputCount < Self.maxPendingOutput else { return nil }
        parsingPaused = false
        return hasBufferedInput ? parseInbox(env: env) : nil
    }

    /// Switches to WebSocket after the in-flight request (the loop checked the handshake):
    /// queues the 101 answer and returns the bytes the client sent after the request, which
    /// are already WebSocket frames. HTTP parsing never resumes on this connection.
    mutating func upgrade(accept: String, env: ConnectionEnvironment) -> [UInt8] {
        guard phase == .awaitingResponse, let inFlight = current, streaming == nil else { return [] }
        current = nil
        phase = .upgraded
        readDeadline = nil
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accept)\r\nDate: \(env.date)\r\nX-Request-Id: \(inFlight.requestID)\r\n\r\n"
        appendOutput(Array(head.utf8), env: env)
        return takeBufferedInput()
    }

    /// At shutdown: a parked (deferred) request gets 503 instead of waiting for its event.
    mutating func respondShuttingDown(env: ConnectionEnvironment) {
        var response = HTTPResponse.jsonError(status: .serviceUnavailable, code: ServerErrorCode.shuttingDown.rawValue,
                                              message: "The server is shutting down; retry shortly.")
        response.headers.add(name: "Retry-After", value: "1")
        _ = respond(response, env: env)
    }
}
