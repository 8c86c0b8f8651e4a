import HTTP1

/// One connection's protocol state, with no sockets: bytes in, requests and response bytes
/// out. The event loop feeds it reads, handler replies, write progress and clock ticks, then
/// performs what it asks for (write `pendingOutput`, dispatch a request, close).
///
/// Lifecycle: reading head → reading body → awaiting response → (written) → reading head of
/// the next request (keep-alive) or closing. Only one request is with the handler at a time;
/// bytes of pipelined requests are buffered unparsed until its response is queued, which keeps
/// responses in request order without any reordering logic.
struct ConnectionStateMachine {
    enum Phase: Equatable {
        /// Waiting for (the rest of) a request head. `requestStarted` says whether any byte of
        /// it arrived; a connection that sent nothing is closed silently on timeout.
        case readingHead
        case readingBody
        /// A request is with the handler (or parked as deferred).
        case awaitingResponse
        /// The last response is queued; once written the loop half-closes and lingers.
        case closing
        /// Upgraded to WebSocket: no more HTTP; the loop decodes frames (`WebSocketSession`)
        /// and uses this machine only for output, write timeouts and the final linger.
        case upgraded
    }

    /// A request the loop should hand to the worker pool.
    struct Dispatch {
        var request: HTTPRequest
        var requestID: String
    }

    /// What a clock tick decided.
    enum TimerOutcome: Equatable {
        case nothing
        /// An error response was queued; flush it, then close.
        case respondAndClose
        /// Close now without a word (idle keep-alive, never-spoke client, stuck writer, linger over).
        case closeNow
    }

    struct InFlight {
        var isHead: Bool
        var keepAlive: Bool
        var requestID: String
        var version: HTTPVersion
    }

    // Set by the machine only, here and in its extensions (`+Responses`, `+Timers`, `+Streaming`);
    // the loop reads them.
    var phase: Phase = .readingHead
    var requestStarted = false
    /// Set when the peer half-closed while a request was in flight: answer it, then close.
    private(set) var peerClosed = false
    var readDeadline: Int64?
    var writeDeadline: Int64?
    /// True once the final response is fully written and the loop has half-closed.
    private(set) var lingering = false

    private var parser: HTTPRequestParser
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    var current: InFlight?
    /// Set while a streamed response's body is being sent (`+Streaming`).
    var streaming: StreamingResponse?

    /// Pipelined bytes buffered while a request is in flight, beyond which the loop stops reading.
    static let maxBufferedWhileBusy = 64 * 1024
    /// Unsent response bytes beyond which pipelined requests wait: a client that pipelines
    /// but never reads must not make us queue responses without bound.
    static let maxPendingOutput = 64 * 1024

    /// Parsing is paused because the client is not reading its responses fast enough.
    var parsingPaused = false
    /// Upgraded connections: the handler is behind on messages, stop reading for now.
    var inputPaused = false

    init(environment env: ConnectionEnvironment) {
        parser = HTTPRequestParser(limits: env.limits)
        readDeadline = env.now + env.timeouts.header
    }

    /// A connection accepted beyond `maxConnections`: it only gets a 503 and is closed.
    static func rejecting(environment env: ConnectionEnvironment) -> ConnectionStateMachine {
        var machine = ConnectionStateMachine(environment: env)
        var response = HTTPResponse.jsonError(status: .serviceUnavailable, code: ServerErrorCode.tooManyConnections.rawValue,
                                              message: "The server is at its connection limit; retry shortly.")
        response.headers.add(name: "Retry-After", value: "1")
        machine.queueFinal(response, requestID: env.requestID(from: nil), env: env)
        return machine
    }

    // MARK: Output

    var hasPendingOutput: Bool { outboxStart < outbox.count }
    /// Unsent output bytes (a stream's or WebSocket's backpressure measure).
    var pendingOutputCount: Int { outbox.count - outboxStart }

    /// Calls `body` with the unwritten output; the loop writes from it and reports `didWrite`.
    func withPendingOutput<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        outbox.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[outboxStart...])) }
    }

    mutating func didWrite(_ count: Int) {
        outboxStart += count
        if outboxStart >= outbox.count {
            // Upgraded connections mostly sit idle between messages: keep nothing for them.
            outbox.removeAll(keepingCapacity: phase != .upgraded && outbox.capacity <= 64 * 1024)
            outboxStart = 0
            writeDeadline = nil
        }
    }

    /// Whether the loop should half-close and start lingering now.
    var readyToLinger: Bool { phase == .closing && !hasPendingOutput && !lingering }

    mutating func startLingering(env: ConnectionEnvironment) {
        lingering = true
        readDeadline = env.now + env.timeouts.linger
    }

    /// Whether the loop should keep EPOLLIN armed.
    var wantsRead: Bool {
        if peerClosed { return false }
        if phase == .upgraded { return !inputPaused }
        if phase == .awaitingResponse || parsingPaused { return inbox.count - inboxStart < Self.maxBufferedWhileBusy }
        return true
    }

    /// True when nothing of a request is pending: safe to close at shutdown.
    var isIdle: Bool { phase == .readingHead && !requestStarted && !hasPendingOutput && inbox.count == inboxStart }

    // MARK: Input

    /// New bytes from the socket. Returns a request to dispatch, if one became complete.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, env: ConnectionEnvironment) -> Dispatch? {
        switch phase {
        case .closing, .upgraded:
            return nil // draining: whatever the client still sends is discarded (upgraded: not HTTP)
        case .awaitingResponse:
            inbox.append(contentsOf: bytes)
            return nil
        case .readingHead where parsingPaused:
            inbox.append(contentsOf: bytes)
            return nil
        case .readingHead, .readingBody:
            if inbox.count == inboxStart {
                // Hot path: parse straight from the read buffer, keep only the leftover.
                let (consumed, dispatch) = parse(bytes, env: env)
                if consumed < bytes.count, phase != .closing {
                    inbox.removeAll(keepingCapacity: true)
                    inboxStart = 0
                    inbox.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
                }
                return dispatch
            }
            inbox.append(contentsOf: bytes)
            return parseInbox(env: env)
        }
    }

    /// The peer sent FIN. Returns true when the loop should close right away. A client may
    /// half-close after sending its (pipelined) requests: whatever it sent in full is still
    /// answered, then the connection closes.
    mutating func receivedEOF() -> Bool {
        if phase == .upgraded { return true } // the peer's FIN ends a WebSocket (no half-open use)
        let answerPending = (phase == .awaitingResponse && current != nil)
            || (phase == .readingHead && !requestStarted && (hasPendingOutput || inbox.count > inboxStart))
        if answerPending {
            peerClosed = true
            return false
        }
        return !(phase == .closing && hasPendingOutput)
    }

    /// The peer is gone and nothing is left to answer.
    var finishedAfterPeerClose: Bool { peerClosed && isIdle }

    /// Received bytes not parsed yet (pipelined requests, or the first WebSocket frames).
    var hasBufferedInput: Bool { inbox.count > inboxStart }

    /// The bytes received and not parsed, handed over for good (an upgrade: they are frames).
    mutating func takeBufferedInput() -> [UInt8] {
        let leftover = Array(inbox[inboxStart...])
        inbox = []
        inboxStart = 0
        return leftover
    }

    mutating func parseInbox(env: ConnectionEnvironment) -> Dispatch? {
        var buffer: [UInt8] = []
        swap(&buffer, &inbox) // parse without an exclusive access to self.inbox
        let (consumed, dispatch) = buffer.withUnsafeBytes { raw in
            parse(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]), env: env)
        }
        swap(&buffer, &inbox)
        inboxStart += consumed
        if phase == .closing || inboxStart >= inbox.count {
            inbox.removeAll(keepingCapacity: inbox.capacity <= 64 * 1024)
            inboxStart = 0
        } else if inboxStart > 4096 && inboxStart * 2 > inbox.count {
            inbox.removeFirst(inboxStart)
            inboxStart = 0
        }
        return dispatch
    }

    /// Runs the parser over `buffer` until it needs more input, a request completes, or it fails.
    private mutating func parse(_ buffer: UnsafeRawBufferPointer, env: ConnectionEnvironment) -> (Int, Dispatch?) {
        var offset = 0
        while true {
            if phase == .readingHead && !requestStarted && offset < buffer.count {
                requestStarted = true
                readDeadline = env.now + env.timeouts.header
            }
            switch parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...])) {
            case .needMore(let consumed):
                return (offset + consumed, nil)
            case .headComplete(let head, let consumed):
                offset += consumed
                phase = .readingBody
                readDeadline = env.now + env.timeouts.body
                if let length = head.headers["Content-Length"].flatMap({ Int($0) }), length > env.limits.maxBodyBytes {
                    fail(.bodyTooLarge, env: env)
                    return (buffer.count, nil)
                }
                // RFC 9110 §10.1.1: only 1.1 clients get 100, and only if the body isn't here yet.
                if head.expectsContinue && head.version == .http11 && offset == buffer.count {
                    appendOutput(HTTPResponseEncoder.continueResponse, env: env)
                }
            case .complete(let request, let consumed):
                offset += consumed
                let requestID = env.requestID(from: request.headers)
                current = InFlight(isHead: request.method == .head, keepAlive: request.head.wantsKeepAlive,
                                   requestID: requestID, version: request.head.version)
                phase = .awaitingResponse
                readDeadline = nil
                return (offset, Dispatch(request: request, requestID: requestID))
            case .failure(let error):
                fail(error, env: env)
                return (buffer.count, nil)
            }
        }
    }

    // MARK: Helpers

    private mutating func fail(_ error: HTTPParseError, env: ConnectionEnvironment) {
        let response = HTTPResponse.jsonError(status: error.status, code: error.code, message: error.message)
        queueFinal(response, requestID: env.requestID(from: nil), env: env)
    }

    /// Queues a protocol-level response that ends the connection.
    mutating func queueFinal(_ response: HTTPResponse, requestID: String, env: ConnectionEnvironment) {
        var response = response
        response.headers.set(name: "Date", value: env.date)
        response.headers.set(name: "X-Request-Id", value: requestID)
        response.headers.set(name: "Connection", value: "close")
        appendOutput(Self.wireBytes(response, omitBody: false), env: env)
        enterClosing()
    }

    mutating func enterClosing() {
        phase = .closing
        readDeadline = nil
        inbox = []
        inboxStart = 0
    }

    mutating func appendOutput(_ bytes: [UInt8], env: ConnectionEnvironment) {
        if !hasPendingOutput { writeDeadline = env.now + env.timeouts.write }
        if outbox.isEmpty && outbox.capacity < bytes.count {
            outbox = bytes // nothing to keep: take the bytes without copying them
        } else {
            outbox.append(contentsOf: bytes)
        }
    }
}
