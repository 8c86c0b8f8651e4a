import Foundation
import Logging
import Postgres
import Store

/// One FCM HTTP v1 attempt: a data message with high Android priority, so the app runs and
/// syncs; no notification block, no row data.
extension PushSender {
    static func fcmBody(token: String, reason: String) -> [UInt8] {
        let message: [String: Any] = ["message": [
            "token": token, "data": ["dispatch": reason == "urgent" ? "urgent" : "changed"], "android": ["priority": "high"],
        ]]
        return (try? JSONSerialization.data(withJSONObject: message, options: .sortedKeys)).map(Array.init) ?? []
    }

    func attemptFCM(_ push: PushOutboxQueue.Claimed) -> PushOutboxQueue.Outcome {
        let metadata = Self.metadata(push)
        guard let fcm else {
            count { $0.dead += 1 }
            return .dead(status: nil, error: "no provider is configured for android")
        }
        let url = "\(fcm.settings.baseURL)/v1/projects/\(fcm.settings.projectID)/messages:send"
        let body = Self.fcmBody(token: push.token, reason: push.reason)
        do {
            var token = try fcm.tokens.token(using: fcm.client)
            var response = try fcm.client.post(url: url, headers: ["Authorization: Bearer \(token)", "Content-Type: application/json"],
                                               body: body)
            if response.status == 401 {
                // Once: the cached OAuth token was revoked or expired early.
                fcm.tokens.invalidate(token)
                token = try fcm.tokens.token(using: fcm.client)
                response = try fcm.client.post(url: url, headers: ["Authorization: Bearer \(token)", "Content-Type: application/json"],
                                               body: body)
            }
            return classifyFCM(response, push, metadata: metadata)
        } catch let failure as FCMClient.Failure {
            count { $0.failed += 1 }
            log.warning("FCM attempt failed; will retry", metadata: metadata.merging(["error": .string(failure.message)]) { $1 })
            return .failed(status: nil, error: failure.message, retryAfter: policy.retryWait(afterAttempt: push.attempts))
        } catch {
            count { $0.failed += 1 }
            let message = (error as? FCMAccessToken.Failure)?.message ?? "FCM access token unavailable"
            log.warning("FCM access token unavailable; will retry", metadata: metadata.merging(["error": .string(message)]) { $1 })
            return .failed(status: nil, error: message, retryAfter: policy.retryWait(afterAttempt: push.attempts))
        }
    }

    private func classifyFCM(_ response: FCMClient.Response, _ push: PushOutboxQueue.Claimed,
                             metadata: Logger.Metadata) -> PushOutboxQueue.Outcome {
        let text = String(decoding: response.body.prefix(300), as: UTF8.self)
        let metadata = metadata.merging(["status": .stringConvertible(response.status)]) { $1 }
        switch response.status {
        case 200:
            count { $0.sent += 1 }
            return .sent(status: 200)
        case 404 where text.contains("UNREGISTERED"):
            count { $0.dead += 1 }
            do {
                if try service.devices.removeDead(id: push.deviceID, token: push.token, invalidSince: nil) {
                    count { $0.devicesRemoved += 1 }
                    log.info("push device removed: FCM no longer knows its token", metadata: metadata)
                }
            } catch {
                log.warning("cannot remove a push device", metadata: metadata.merging(["error": .string("\(error)")]) { $1 })
            }
            return .dead(status: 404, error: "UNREGISTERED")
        case 429:
            count { $0.failed += 1 }
            return .failed(status: 429, error: "QUOTA_EXCEEDED", retryAfter: policy.tooManyRequestsBackoff)
        case 500...599:
            count { $0.failed += 1 }
            return .failed(status: response.status, error: "HTTP \(response.status)",
                           retryAfter: policy.retryWait(afterAttempt: push.attempts))
        default:
            count { $0.dead += 1 }
            log.error("FCM refused a push", metadata: metadata.merging(["answer": .string(text)]) { $1 })
            return .dead(status: response.status, error: "HTTP \(response.status)")
        }
    }
}
