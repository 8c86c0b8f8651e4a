import HTTP1

/// Deadlines: the loop ticks every machine a few times per second (`EventLoop.scanTimers`) and
/// acts on what a passed deadline means in the current phase.
extension ConnectionStateMachine {
    mutating func tick(env: ConnectionEnvironment) -> TimerOutcome {
        if let writeDeadline, env.now >= writeDeadline { return .closeNow }
        guard let readDeadline, env.now >= readDeadline else { return .nothing }
        switch phase {
        case .readingHead where !requestStarted:
            // Idle keep-alive (or never spoke): close quietly, but not while a response drains.
            return hasPendingOutput ? .nothing : .closeNow
        case .closing:
            return .closeNow
        case .readingHead, .readingBody:
            var response = HTTPResponse.jsonError(status: .requestTimeout, code: ServerErrorCode.requestTimeout.rawValue,
                                                  message: "The request was not received in time.")
            response.headers.add(name: "Retry-After", value: "1")
            queueFinal(response, requestID: env.requestID(from: nil), env: env)
            return .respondAndClose
        case .awaitingResponse, .upgraded:
            return .nothing
        }
    }
}
