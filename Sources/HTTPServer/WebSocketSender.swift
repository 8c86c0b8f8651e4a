import HTTP1
import Synchronization

/// What other threads ask of a WebSocket connection, through the event loop's mailbox.
enum WebSocketCommand: Sendable {
    /// An encoded frame to write.
    case send([UInt8])
    case close(WebSocketCloseCode, String)
    /// The handler caught up with the messages it was given: read from the socket again.
    case resumeReading
}

/// The handler's `WebSocketOutbound`: frames are encoded on the calling thread and posted to
/// the loop, which wakes up to write them.
///
/// The send queue bound counts every byte accepted here and not yet taken by the client's
/// socket — frames still in the mailbox plus the connection's unsent output — so a client
/// that stops reading costs at most `limit` bytes. The send that would pass it fails and
/// closes the connection with 1008 instead. What it holds is also reported to the server's
/// counters (`websocket_send_queue_*` on /metrics): measured from the same two quantities,
/// not inferred from the bound, so a leak past it shows.
final class WebSocketSender: WebSocketOutbound {
    private struct State {
        var open = true
        var inMailbox = 0
        var onSocket = 0
        /// `onSocket` is no longer reported (the WebSocket is over).
        var released = false
    }

    private let state = Mutex(State())
    private let limit: Int
    private let counters: Counters
    private let post: @Sendable (WebSocketCommand) -> Void

    init(limit: Int, counters: Counters, post: @escaping @Sendable (WebSocketCommand) -> Void) {
        self.limit = limit
        self.counters = counters
        self.post = post
    }

    @discardableResult
    func send(text: String) -> Bool {
        enqueue(WebSocketFrameEncoder.frame(.text, payload: text.utf8))
    }

    @discardableResult
    func send(binary: [UInt8]) -> Bool {
        enqueue(WebSocketFrameEncoder.frame(.binary, payload: binary))
    }

    /// Accepts one encoded frame within the send-queue bound, or closes the connection (1008).
    private func enqueue(_ frame: [UInt8]) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            guard state.inMailbox + state.onSocket + frame.count <= limit else {
                state.open = false
                counters.webSocketQueueOverflows.add(1, ordering: .relaxed)
                post(.close(.policyViolation, "send queue full: the client is reading too slowly"))
                return false
            }
            state.inMailbox += frame.count
            counters.webSocketQueuedBytes.add(frame.count, ordering: .relaxed)
            counters.noteWebSocketQueue(state.inMailbox + state.onSocket)
            post(.send(frame)) // under the lock: sends and a close stay in the order they were accepted
            return true
        }
    }

    func close(code: WebSocketCloseCode, reason: String) {
        state.withLock { state in
            guard state.open else { return }
            state.open = false
            post(.close(code, reason))
        }
    }

    // MARK: Event loop side

    /// The loop took a frame out of the mailbox (written to the connection or dropped).
    func tookFromMailbox(_ count: Int) {
        state.withLock { $0.inMailbox -= count }
        counters.webSocketQueuedBytes.subtract(count, ordering: .relaxed)
    }

    /// The connection's unsent output after a write attempt.
    func socketPending(_ count: Int) {
        state.withLock { state in
            guard !state.released else { return }
            counters.webSocketQueuedBytes.add(count - state.onSocket, ordering: .relaxed)
            state.onSocket = count
            counters.noteWebSocketQueue(state.inMailbox + state.onSocket)
        }
    }

    /// The WebSocket is over: its output is no longer counted (what is left drains or is
    /// dropped with the connection, as for any closing HTTP connection).
    func release() {
        state.withLock { state in
            state.open = false
            guard !state.released else { return }
            state.released = true
            counters.webSocketQueuedBytes.subtract(state.onSocket, ordering: .relaxed)
            state.onSocket = 0
        }
    }

    /// The connection is closing: later sends fail.
    func markClosed() {
        state.withLock { $0.open = false }
    }
}
