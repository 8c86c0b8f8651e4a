import HTTP1
import Logging

/// One upgraded connection as the event loop sees it (loop-confined): the frame decoder, the
/// close handshake's progress, and the timers. The socket and its output buffer stay in the
/// `ConnectionRecord` / `ConnectionStateMachine`, as for HTTP.
final class WebSocketSession {
    enum State: Equatable {
        /// Messages flow both ways.
        case open
        /// Our close frame is queued; waiting for the client's until `deadline` (then drop).
        case closeSent(deadline: Int64)
        /// Both close frames exchanged, or the connection failed: only flushing and lingering remain.
        case finished
    }

    let handler: any WebSocketHandler
    let sender: WebSocketSender
    let callbacks: WebSocketCallbackQueue
    let logger: Logger
    let openedAt: Int64
    var decoder: WebSocketFrameDecoder
    var state = State.open
    /// The first close code sent or received: what `closed(code:)` reports.
    var closeCode: WebSocketCloseCode?
    /// Last time any byte arrived (ping timer) and last time a message did (idle timer).
    var lastInputAt: Int64
    var lastMessageAt: Int64
    /// When our unanswered ping went out.
    var pingSentAt: Int64?
    /// Frame-rate window: its start and the decoder's frame count then.
    var windowStart: Int64
    var framesBeforeWindow = 0

    init(handler: any WebSocketHandler, sender: WebSocketSender, callbacks: WebSocketCallbackQueue,
         limits: WebSocketDecoderLimits, logger: Logger, now: Int64) {
        self.handler = handler
        self.sender = sender
        self.callbacks = callbacks
        decoder = WebSocketFrameDecoder(limits: limits)
        self.logger = logger
        openedAt = now
        lastInputAt = now
        lastMessageAt = now
        windowStart = now
    }

    /// Whether incoming frames are still decoded (until the handshake is over).
    var isDecoding: Bool { state != .finished }

    /// Frames decoded in the current one-second window (rolling it over when it ended).
    func framesInWindow(now: Int64) -> Int {
        if now - windowStart >= 1_000_000_000 {
            windowStart = now
            framesBeforeWindow = decoder.frameCount
        }
        return decoder.frameCount - framesBeforeWindow
    }
}
