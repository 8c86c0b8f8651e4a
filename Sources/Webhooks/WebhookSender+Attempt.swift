import Foundation
import Logging
import Store

/// One attempt: sign, POST, classify the answer.
extension WebhookSender {
    struct AttemptOutcome {
        var delivery: WebhookDeliveryQueue.Outcome
        /// What the answer means for the endpoint, recorded after the delivery.
        var endpoint: ((WebhookSender) throws -> Void)?
    }

    func attempt(_ delivery: WebhookDeliveryQueue.Claimed) -> AttemptOutcome {
        let metadata: Logger.Metadata = ["delivery_id": .string(delivery.id.uuidString), "webhook_id": .string(delivery.eventID),
                                         "endpoint_id": .string(delivery.endpointID.uuidString),
                                         "attempt": .stringConvertible(delivery.attempts)]
        guard let secret = seal.open(delivery.sealedSecret).flatMap(WebhookSecret.init) else {
            count { $0.dead += 1 }
            log.error("webhook dead: the endpoint's secret does not open (sealed under another JWT_SECRET?)", metadata: metadata)
            return AttemptOutcome(delivery: .dead(status: nil, milliseconds: 0, error: "the endpoint's secret does not open"))
        }
        let secrets = [secret] + (delivery.sealedPreviousSecret.flatMap(seal.open).flatMap(WebhookSecret.init).map { [$0] } ?? [])
        let body = Array(delivery.payload.utf8)
        let timestamp = Int(Date().timeIntervalSince1970)
        let headers = [("webhook-id", delivery.eventID), ("webhook-timestamp", String(timestamp)),
                       ("webhook-signature", WebhookSignature.header(id: delivery.eventID, timestamp: timestamp, body: body, secrets: secrets))]
        let started = ContinuousClock.now
        let status: Int?
        let problem: String
        var retryAfter: Duration?
        do {
            let response = try client.post(url: delivery.url, headers: headers, body: body)
            let milliseconds = Self.milliseconds(since: started)
            if (200..<300).contains(response.status) {
                count { $0.delivered += 1 }
                log.info("webhook delivered", metadata: metadata.merging(["status": .stringConvertible(response.status)]) { $1 })
                let id = delivery.endpointID
                return AttemptOutcome(delivery: .sent(status: response.status, milliseconds: milliseconds),
                                      endpoint: { try $0.endpoints.recordSuccess(id: id) })
            }
            if response.status == 410 {
                count { $0.dead += 1 }
                log.warning("webhook receiver answered 410 Gone: endpoint disabled", metadata: metadata)
                let id = delivery.endpointID
                return AttemptOutcome(delivery: .dead(status: 410, milliseconds: milliseconds,
                                                      error: "410 Gone: the endpoint was disabled"),
                                      endpoint: { sender in
                                          if try sender.endpoints.disable(id: id, reason: "the receiver answered 410 Gone"),
                                             let endpoint = try sender.endpoints.find(id: id) {
                                              sender.disabled(endpoint)
                                          }
                                      })
            }
            status = response.status
            retryAfter = response.retryAfter
            problem = "HTTP \(response.status)" + (response.excerpt.isEmpty ? "" : ": \(response.excerpt)")
        } catch {
            if error.refusedByGuard { count { $0.refusedByGuard += 1 } }
            status = nil
            problem = error.message
        }
        return failure(delivery, status: status, milliseconds: Self.milliseconds(since: started), problem: problem,
                       retryAfter: retryAfter, metadata: metadata)
    }

    private func failure(_ delivery: WebhookDeliveryQueue.Claimed, status: Int?, milliseconds: Int, problem: String,
                         retryAfter: Duration?, metadata: Logger.Metadata) -> AttemptOutcome {
        let id = delivery.endpointID
        let disableAfter = policy.disableAfter
        let endpointFailed: (WebhookSender) throws -> Void = { sender in
            if let disabled = try sender.endpoints.recordFailure(id: id, disableAfter: disableAfter) {
                sender.disabled(disabled)
                sender.log.warning("webhook endpoint disabled: every attempt failed for days",
                                   metadata: ["endpoint_id": .string(disabled.id.uuidString)])
            }
        }
        guard let wait = policy.schedule.wait(afterAttempt: delivery.attempts, retryAfter: retryAfter) else {
            count { $0.dead += 1 }
            log.error("webhook dead: giving up after \(delivery.attempts) attempts",
                      metadata: metadata.merging(["error": .string(problem)]) { $1 })
            return AttemptOutcome(delivery: .dead(status: status, milliseconds: milliseconds, error: problem), endpoint: endpointFailed)
        }
        count { $0.failedAttempts += 1 }
        log.warning("webhook attempt failed; will retry", metadata: metadata.merging([
            "error": .string(problem), "retry_in_seconds": .stringConvertible(Int(wait.timeInterval)),
        ]) { $1 })
        return AttemptOutcome(delivery: .failed(status: status, milliseconds: milliseconds, error: problem, retryAfter: wait),
                              endpoint: endpointFailed)
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
