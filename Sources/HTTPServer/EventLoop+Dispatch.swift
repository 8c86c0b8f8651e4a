import HTTP1

/// Requests leave the loop to run (on a worker, or inline for loop-safe routes) and their
/// answers come back through the mailbox to be delivered in order.
extension EventLoop {
    func dispatch(_ dispatch: ConnectionStateMachine.Dispatch, on record: ConnectionRecord) {
        record.requestInFlight = true
        record.hasCarriedRequest = true
        counters.inFlight.add(1, ordering: .relaxed)
        counters.requests.add(1, ordering: .relaxed)
        let id = record.id
        let address = record.remoteAddress, peer = record.peerAddress
        let chain = chain
        let logger = logger
        // The request's one route match: here, because it decides which thread runs it.
        let route = chain.responder.route(for: dispatch.request)
        let job: @Sendable () -> Void = { [self] in
            var context = RequestContext(requestID: dispatch.requestID,
                                         query: QueryParameters(parsing: dispatch.request.query),
                                         logger: logger, remoteAddress: address, peerAddress: peer)
            context.route = route
            var reply: HandlerReply
            do {
                reply = try chain.run(dispatch.request, context)
            } catch {
                reply = .response(ErrorMiddleware.render(error, context: context))
            }
            if case .webSocket(let handler) = reply {
                switch WebSocketUpgrade.resolve(handler, request: dispatch.request, logger: context.logger) {
                case .success(let upgrade): return self.post(.upgrade(id, upgrade))
                case .failure(let error): reply = .response(error.response)
                }
            }
            // Through the mailbox even when run inline: delivering here could dispatch the next
            // pipelined request recursively, without bound.
            self.post(.reply(id, reply))
        }
        if route?.runsOnEventLoop == true { job() } else { workers.submit(job) }
    }

    func deliver(_ response: HTTPResponse, to record: ConnectionRecord) {
        guard record.requestInFlight else { return }
        record.requestInFlight = false
        counters.inFlight.subtract(1, ordering: .relaxed)
        if let next = record.machine.respond(response, env: env) { dispatch(next, on: record) }
        service(record)
    }

    func deliverShuttingDown(to record: ConnectionRecord) {
        guard record.requestInFlight else { return }
        record.requestInFlight = false
        counters.inFlight.subtract(1, ordering: .relaxed)
        record.machine.respondShuttingDown(env: env)
        service(record)
    }
}
