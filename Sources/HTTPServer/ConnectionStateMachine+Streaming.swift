import HTTP1

/// A streamed response on its way out (`ResponseBodyStream`).
struct StreamingResponse {
    enum Framing { case chunked, untilClose, headOnly }
    var framing: Framing
    var keepAlive: Bool
}

extension ConnectionStateMachine {
    /// Queues the head of a streamed response for the in-flight request; the body follows
    /// with `appendStreamBody` and ends with `finishStream`. The phase stays
    /// `awaitingResponse` (pipelined input waits) until then.
    mutating func beginStream(_ head: HTTPResponse, env: ConnectionEnvironment) {
        guard phase == .awaitingResponse, let inFlight = current, streaming == nil else { return }
        var (response, keepAlive) = finalHeaders(head, for: inFlight, env: env)
        response.headers.remove(name: "Content-Length")
        let framing: StreamingResponse.Framing
        if inFlight.isHead {
            framing = .headOnly
            response.headers.set(name: "Transfer-Encoding", value: "chunked")
        } else if inFlight.version == .http11 {
            framing = .chunked
            response.headers.set(name: "Transfer-Encoding", value: "chunked")
        } else {
            // HTTP/1.0 has no chunked coding: the body ends when the connection does.
            framing = .untilClose
            if keepAlive { response.headers.set(name: "Connection", value: "close") }
            keepAlive = false
        }
        streaming = StreamingResponse(framing: framing, keepAlive: keepAlive)
        appendOutput(Self.streamHeadBytes(response), env: env)
    }

    mutating func appendStreamBody(_ bytes: [UInt8], env: ConnectionEnvironment) {
        guard let streaming else { return }
        var framed: [UInt8] = []
        switch streaming.framing {
        case .chunked:
            framed.reserveCapacity(bytes.count + 12)
            HTTPResponseEncoder.appendChunk(bytes, into: &framed)
        case .untilClose:
            framed = bytes
        case .headOnly:
            return
        }
        appendOutput(framed, env: env)
    }

    /// Ends the streamed body. A complete one gets its last chunk and the connection carries
    /// on (keep-alive); an incomplete one closes after what was queued, without the last
    /// chunk, so the client cannot mistake it for a whole result.
    mutating func finishStream(complete: Bool, env: ConnectionEnvironment) -> Dispatch? {
        guard let streaming else { return nil }
        self.streaming = nil
        current = nil
        guard complete else {
            enterClosing()
            return nil
        }
        if streaming.framing == .chunked { appendOutput(HTTPResponseEncoder.lastChunk, env: env) }
        return continueAfterResponse(keepAlive: streaming.keepAlive, env: env)
    }

    /// The client took some of a stream (or of a WebSocket's output): it is reading, so the
    /// write timeout restarts (it bounds a stalled reader, not the length of a long body).
    mutating func streamMadeProgress(env: ConnectionEnvironment) {
        if (streaming != nil || phase == .upgraded) && hasPendingOutput { writeDeadline = env.now + env.timeouts.write }
    }

    static func streamHeadBytes(_ response: HTTPResponse) -> [UInt8] {
        var response = response
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        if response.headers["Cache-Control"] == nil { response.headers.add(name: "Cache-Control", value: "no-store") }
        var bytes: [UInt8] = []
        HTTPResponseEncoder.encodeHead(response, into: &bytes)
        return bytes
    }
}
