import Credentials
import Foundation
import Synchronization

/// The OAuth 2 access token FCM wants: a service account's RS256 JWT assertion exchanged at
/// Google's token endpoint for a token valid about an hour, cached until a minute before it
/// expires (or until FCM answers 401), so the endpoint is asked about once an hour.
package final class FCMAccessToken: Sendable {
    private let settings: FCMSettings
    private let current = Mutex<(token: String, expires: Date)?>(nil)
    private let fetches = Atomic<Int>(0)

    package init(settings: FCMSettings) {
        self.settings = settings
    }

    package var fetched: Int { fetches.load(ordering: .relaxed) }

    package struct Failure: Error, Sendable {
        package var message: String
    }

    /// The cached token, or a new one fetched with `client`.
    package func token(using client: FCMClient) throws(Failure) -> String {
        if let cached = current.withLock({ $0 }), cached.expires.timeIntervalSinceNow > 60 { return cached.token }
        let now = Date()
        let assertion: String
        do {
            assertion = try settings.key.token(header: ["typ": "JWT"], claims: [
                "iss": settings.clientEmail, "scope": FCMSettings.scope, "aud": settings.tokenURL,
                "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600,
            ])
        } catch {
            throw Failure(message: "the service account key cannot sign")
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let response: FCMClient.Response
        do {
            response = try client.post(url: settings.tokenURL, headers: ["Content-Type: application/x-www-form-urlencoded"],
                                       body: Array(form.utf8))
        } catch {
            throw Failure(message: "token endpoint unreachable: \(error.message)")
        }
        fetches.add(1, ordering: .relaxed)
        guard response.status == 200,
              let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
              let token = object["access_token"] as? String
        else { throw Failure(message: "the token endpoint answered \(response.status)") }
        let lifetime = (object["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        current.withLock { $0 = (token, now.addingTimeInterval(lifetime)) }
        return token
    }

    /// FCM refused `token` (401): forget it so the next call fetches a new one.
    package func invalidate(_ token: String) {
        current.withLock { if $0?.token == token { $0 = nil } }
    }
}
