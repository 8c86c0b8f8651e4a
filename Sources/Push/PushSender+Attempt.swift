import Foundation
import Logging
import Postgres
import Store

/// One round of attempts: build the wake-ups, send them, classify APNs' answers.
extension PushSender {
    /// What the phone receives: content-available and a reason, never row data.
    static func body(reason: String) -> [UInt8] {
        Array(#"{"aps":{"content-available":1},"dispatch":{"reason":"\#(reason == "urgent" ? "urgent" : "changed")"}}"#.utf8)
    }

    static func metadata(_ push: PushOutboxQueue.Claimed) -> Logger.Metadata {
        ["push_id": .string(push.id.uuidString), "device_id": .string(push.deviceID.uuidString), "attempt": .stringConvertible(push.attempts)]
    }

    /// The outcome of a push that must not be sent now (interrupted earlier, stale, or for a
    /// platform nothing is configured for); nil: send it.
    func verdictBeforeSending(_ push: PushOutboxQueue.Claimed) -> PushOutboxQueue.Outcome? {
        let metadata = Self.metadata(push)
        if push.interrupted {
            // A sender died or hung holding this push, maybe after APNs took it: sending now
            // could wake the phone twice within the interval. It is owed again after it.
            count { $0.interrupted += 1 }
            log.warning("push send interrupted earlier (instance killed?); owed again after the interval", metadata: metadata)
            return .interrupted
        }
        if Date().timeIntervalSince(push.dueAt) > policy.staleAfter.timeInterval {
            count { $0.droppedStale += 1 }
            log.info("push dropped: owed too long to be worth sending", metadata: metadata)
            return .dead(status: nil, error: "stale: owed for longer than \(Int(policy.staleAfter.timeInterval)) s")
        }
        if (push.platform == .android ? fcm == nil : apns == nil) {
            count { $0.dead += 1 }
            return .dead(status: nil, error: "no provider is configured for \(push.platform.rawValue)")
        }
        return nil
    }

    /// iOS wake-ups, all at once over the kept HTTP/2 connection; outcomes in their order.
    func attemptAPNs(_ pushes: [PushOutboxQueue.Claimed]) -> [PushOutboxQueue.Outcome] {
        guard let apns, !pushes.isEmpty else { return [] }
        let bodies = pushes.map { (token: $0.token, body: Self.body(reason: $0.reason)) }
        do {
            var jwt = try apns.tokens.token()
            var answers = apns.client.sendAll(bodies, jwt: jwt, topic: apns.settings.topic)
            let expired = answers.indices.filter { (try? answers[$0].get())?.isExpiredProviderToken == true }
            if !expired.isEmpty {
                // Once: a second refusal of a fresh token is not an expiry we can fix.
                log.info("APNs provider token expired; signing a new one")
                jwt = try apns.tokens.renew(rejected: jwt)
                let again = apns.client.sendAll(expired.map { bodies[$0] }, jwt: jwt, topic: apns.settings.topic)
                for (index, answer) in zip(expired, again) { answers[index] = answer }
            }
            return zip(pushes, answers).map { push, answer in
                switch answer {
                case .success(let response):
                    return classify(response, push, metadata: Self.metadata(push))
                case .failure(let failure):
                    count { $0.failed += 1 }
                    log.warning("push attempt failed; will retry", metadata: Self.metadata(push).merging(["error": .string(failure.message)]) { $1 })
                    return .failed(status: nil, error: failure.message, retryAfter: policy.retryWait(afterAttempt: push.attempts))
                }
            }
        } catch {
            count { $0.dead += pushes.count }
            log.error("push dead: the APNs key cannot sign", metadata: ["error": .string("\(error)")])
            return pushes.map { _ in .dead(status: nil, error: "the APNs key cannot sign") }
        }
    }

    private func classify(_ response: APNsClient.Response, _ push: PushOutboxQueue.Claimed, metadata: Logger.Metadata) -> PushOutboxQueue.Outcome {
        let reason = response.reason ?? "HTTP \(response.status)"
        let metadata = metadata.merging(["status": .stringConvertible(response.status), "reason": .string(reason)]) { $1 }
        switch response.status {
        case 200:
            count { $0.sent += 1 }
            log.debug("push sent", metadata: metadata)
            return .sent(status: 200)
        case 410,
             400 where response.reason == "BadDeviceToken":
            count { $0.dead += 1 }
            do {
                if try service.devices.removeDead(id: push.deviceID, token: push.token, invalidSince: response.timestamp) {
                    count { $0.devicesRemoved += 1 }
                    log.info("push device removed: APNs no longer knows its token", metadata: metadata)
                }
            } catch {
                log.warning("cannot remove a push device", metadata: metadata.merging(["error": .string("\(error)")]) { $1 })
            }
            return .dead(status: response.status, error: reason)
        case 429:
            count { $0.failed += 1 }
            log.warning("APNs throttles this device; backing off", metadata: metadata)
            return .failed(status: 429, error: reason, retryAfter: policy.tooManyRequestsBackoff)
        case 500...599:
            count { $0.failed += 1 }
            log.warning("APNs unavailable; will retry", metadata: metadata)
            return .failed(status: response.status, error: reason, retryAfter: policy.retryWait(afterAttempt: push.attempts))
        default:
            // Our request or configuration is wrong (BadTopic, InvalidProviderToken …): retrying
            // the same request cannot help; the operator must see it.
            count { $0.dead += 1 }
            log.error("APNs refused a push", metadata: metadata)
            return .dead(status: response.status, error: reason)
        }
    }
}
