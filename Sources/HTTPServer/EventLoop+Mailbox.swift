import Glibc
import HTTP1
import Synchronization

/// The loop's mailbox: other threads (workers, streams, WebSocket senders, shutdown) `post`
/// messages and wake the loop through the eventfd; the loop drains them in order.
extension EventLoop {
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

    /// Loop thread: handles every message posted since the last wakeup.
    func drainMailbox() {
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
}
