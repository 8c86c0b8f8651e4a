import HTTP1

/// Streamed responses on the loop: the producer runs on a worker and posts its head, body
/// pieces and end here; the loop frames them into the connection and reports back how much is
/// still unsent (the producer's backpressure).
extension EventLoop {
    /// A handler answered `.streamed`: remember it (a disconnect cancels it) and run its
    /// producer on a worker.
    func startStream(_ stream: ResponseBodyStream, on record: ConnectionRecord) {
        record.stream = stream
        let id = record.id
        workers.submit { [self] in
            stream.run { [weak self] event in self?.post(.stream(id, event)) }
        }
    }

    func handleStreamEvent(_ event: ResponseBodyStream.Event, id: UInt64) {
        guard let record = connections[id], let stream = record.stream else { return }
        switch event {
        case .head(let head):
            record.machine.beginStream(head, env: env)
            service(record)
        case .body(let bytes):
            record.machine.appendStreamBody(bytes, env: env)
            stream.loopAccepted(bytes.count)
            service(record)
        case .end(let complete):
            record.stream = nil
            guard record.requestInFlight else { return }
            record.requestInFlight = false
            counters.inFlight.subtract(1, ordering: .relaxed)
            if let next = record.machine.finishStream(complete: complete, env: env) { dispatch(next, on: record) }
            service(record)
        case .whole(let response):
            record.stream = nil
            deliver(response, to: record)
        }
    }

    /// After each write attempt on a streaming connection.
    func noteStreamProgress(_ record: ConnectionRecord, _ stream: ResponseBodyStream) {
        record.machine.streamMadeProgress(env: env)
        stream.socketPending(record.machine.pendingOutputCount)
    }
}
