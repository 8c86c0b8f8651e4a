import Foundation
import HTTP1

/// A response whose body is produced while it is sent (`HandlerReply.streamed`), for results
/// too large to hold: the server runs `producer` on a worker thread, which first decides the
/// head (`ResponseStreamWriter.begin`) — or answers a whole response instead
/// (`respond`, e.g. an error found before the first row) — then writes the body in pieces.
///
/// Backpressure: `write` blocks while more than `highWater` bytes are queued for the socket
/// and not yet sent, so memory stays bounded by a slow client rather than growing with the
/// result. When the client disconnects (or stops reading past the write timeout, or the server
/// shuts down) the stream is cancelled and `write` throws `ResponseStreamCancelled`, which
/// unwinds the producer and frees what it holds (a database connection and transaction).
///
/// Framing: chunked for HTTP/1.1, until-close for HTTP/1.0. A producer that throws after
/// `begin` ends the connection without the last chunk, so the client sees a truncated body
/// as an error, never as a complete short result.
public final class ResponseBodyStream: @unchecked Sendable {
    public typealias Producer = @Sendable (ResponseStreamWriter) throws -> Void

    /// Unsent bytes (queued in the event loop plus waiting in the connection's output buffer)
    /// beyond which `write` waits.
    public static let highWater = 256 * 1024

    enum Event {
        case head(HTTPResponse)
        case body([UInt8])
        /// The body is over; `complete` false means it was cut short (close without the last chunk).
        case end(complete: Bool)
        /// A whole response instead of a stream.
        case whole(HTTPResponse)
    }

    enum Phase { case notStarted, streaming, finished }

    let producer: Producer
    // Every access to the fields below happens with `condition` locked.
    private let condition = NSCondition()
    private var transforms: [@Sendable (HTTPResponse) -> HTTPResponse] = []
    private var cancelled = false
    private var phase = Phase.notStarted
    private var queuedInLoop = 0
    private var pendingOnSocket = 0

    public init(_ producer: @escaping Producer) {
        self.producer = producer
    }

    // MARK: Event loop side

    func addTransform(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) {
        locked { transforms.append(transform) }
    }

    /// The connection went away or the server stops: writes throw from now on.
    func cancel() {
        locked { cancelled = true }
        condition.broadcast()
    }

    /// The loop took `count` body bytes into the connection's output buffer.
    func loopAccepted(_ count: Int) {
        locked { queuedInLoop -= count }
        condition.broadcast()
    }

    /// What the connection still has to send after a write attempt.
    func socketPending(_ count: Int) {
        locked { pendingOnSocket = count }
        condition.broadcast()
    }

    /// Runs the producer on the calling (worker) thread, reporting through `post`.
    func run(post: @escaping @Sendable (Event) -> Void) {
        if locked({ cancelled }) { return }
        let writer = ResponseStreamWriter(stream: self, post: post)
        var failure: (any Error)?
        do { try producer(writer) } catch { failure = error }
        let phaseAtEnd = locked { () -> Phase in
            let before = phase
            phase = .finished
            return before
        }
        switch phaseAtEnd {
        case .notStarted:
            let error = (failure as? HTTPError) ?? HTTPError.internalError
            post(.whole(applyTransforms(error.response)))
        case .streaming:
            post(.end(complete: failure == nil))
        case .finished:
            break
        }
    }

    // MARK: Producer side (through ResponseStreamWriter)

    func start(_ response: HTTPResponse, whole: Bool, post: (Event) -> Void) -> Bool {
        let started = locked { () -> Bool in
            guard phase == .notStarted else { return false }
            phase = whole ? .finished : .streaming
            return true
        }
        guard started else { return false }
        let response = applyTransforms(response)
        post(whole ? .whole(response) : .head(response))
        return true
    }

    func send(_ bytes: [UInt8], post: (Event) -> Void) throws {
        guard !bytes.isEmpty else { return }
        try locked {
            guard phase == .streaming else { throw ResponseStreamCancelled() }
            while !cancelled && queuedInLoop + pendingOnSocket >= Self.highWater { condition.wait() }
            if cancelled { throw ResponseStreamCancelled() }
            queuedInLoop += bytes.count
        }
        post(.body(bytes))
    }

    var isCancelled: Bool { locked { cancelled } }
    var hasStarted: Bool { locked { phase != .notStarted } }

    private func applyTransforms(_ response: HTTPResponse) -> HTTPResponse {
        locked { transforms }.reduce(response) { partial, transform in transform(partial) }
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}

/// Thrown by `ResponseStreamWriter.write` once the client is gone.
public struct ResponseStreamCancelled: Error, Sendable {}

/// What a streaming producer writes through.
public struct ResponseStreamWriter: Sendable {
    let stream: ResponseBodyStream
    let post: @Sendable (ResponseBodyStream.Event) -> Void

    /// Sends the head; the body follows with `write`. `Content-Length` is dropped.
    public func begin(_ head: HTTPResponse) {
        _ = stream.start(head, whole: false, post: post)
    }

    /// Answers with a complete response instead of a stream (only before `begin`).
    public func respond(_ response: HTTPResponse) {
        _ = stream.start(response, whole: true, post: post)
    }

    /// Queues body bytes, waiting while too many are unsent. Throws `ResponseStreamCancelled`
    /// when the client went away.
    public func write(_ bytes: [UInt8]) throws {
        try stream.send(bytes, post: post)
    }

    /// True once `begin` (or `respond`) was called: a later failure can no longer change the status.
    public var hasStarted: Bool { stream.hasStarted }
    public var isCancelled: Bool { stream.isCancelled }
}
