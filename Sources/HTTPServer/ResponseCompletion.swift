import HTTP1
import Synchronization

/// The promise behind a deferred reply: completed once, from any thread, with the response.
///
/// The handler may complete it even before returning `.deferred(completion)` (the event can
/// race the return); the server then writes the stored response as soon as it receives the
/// reply. Calls after the first, and calls after cancellation, are ignored.
///
/// `onCancel` callbacks run on the thread that cancels — the event loop when the client
/// disconnects or the server shuts down — so they must be quick and never block (typically:
/// remove the completion from a waiter list).
public final class ResponseCompletion: Sendable {
    private enum Phase {
        case waiting
        case bound(@Sendable (HTTPResponse) -> Void)
        case completedEarly(HTTPResponse)
        case finished
        case cancelled
    }

    private struct State {
        var phase: Phase = .waiting
        var transforms: [@Sendable (HTTPResponse) -> HTTPResponse] = []
        var cancelCallbacks: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init(onCancel: (@Sendable () -> Void)? = nil) {
        if let onCancel { state.withLock { $0.cancelCallbacks.append(onCancel) } }
    }

    /// Delivers the response. Returns false when it was ignored (already completed or cancelled).
    @discardableResult
    public func complete(with response: HTTPResponse) -> Bool {
        let outcome: (sink: (@Sendable (HTTPResponse) -> Void)?, transforms: [@Sendable (HTTPResponse) -> HTTPResponse])?
        outcome = state.withLock { state in
            switch state.phase {
            case .waiting:
                state.phase = .completedEarly(response)
                return (nil, [])
            case .bound(let sink):
                state.phase = .finished
                return (sink, state.transforms)
            case .completedEarly, .finished, .cancelled:
                return nil
            }
        }
        guard let outcome else { return false }
        if let sink = outcome.sink { sink(Self.apply(outcome.transforms, to: response)) }
        return true
    }

    /// True once the client went away or the server shut down; a long-poll loop can check it.
    public var isCancelled: Bool {
        state.withLock { if case .cancelled = $0.phase { return true } else { return false } }
    }

    /// Registers a callback for cancellation; runs it immediately if already cancelled.
    public func onCancel(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if case .cancelled = state.phase { return true }
            state.cancelCallbacks.append(callback)
            return false
        }
        if runNow { callback() }
    }

    func addTransform(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) {
        state.withLock { $0.transforms.append(transform) }
    }

    /// Connects the completion to its connection. Returns the (transformed) response when the
    /// handler already completed it; otherwise `sink` receives it later.
    func bind(_ sink: @escaping @Sendable (HTTPResponse) -> Void) -> HTTPResponse? {
        let early: (HTTPResponse, [@Sendable (HTTPResponse) -> HTTPResponse])? = state.withLock { state in
            switch state.phase {
            case .waiting:
                state.phase = .bound(sink)
                return nil
            case .completedEarly(let response):
                state.phase = .finished
                return (response, state.transforms)
            case .bound, .finished, .cancelled:
                return nil
            }
        }
        guard let early else { return nil }
        return Self.apply(early.1, to: early.0)
    }

    /// Marks the completion cancelled and runs the cancel callbacks (only if not yet finished).
    func cancel() {
        let callbacks: [@Sendable () -> Void] = state.withLock { state in
            switch state.phase {
            case .waiting, .bound, .completedEarly:
                state.phase = .cancelled
                let callbacks = state.cancelCallbacks
                state.cancelCallbacks = []
                return callbacks
            case .finished, .cancelled:
                return []
            }
        }
        for callback in callbacks { callback() }
    }

    private static func apply(_ transforms: [@Sendable (HTTPResponse) -> HTTPResponse],
                              to response: HTTPResponse) -> HTTPResponse {
        transforms.reduce(response) { partial, transform in transform(partial) }
    }
}
