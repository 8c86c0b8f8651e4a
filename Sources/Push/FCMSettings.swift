import Credentials
import Foundation

/// Where and as whom the FCM sender talks (FCM_* settings): a Google service account read
/// from the file FCM_SERVICE_ACCOUNT_FILE names, never from the database.
package struct FCMSettings: Sendable {
    package var projectID: String
    package var clientEmail: String
    package var key: JWSSigningKey
    /// `https://oauth2.googleapis.com/token` unless FCM_TOKEN_URL says otherwise.
    package var tokenURL: String
    /// `https://fcm.googleapis.com` unless FCM_URL says otherwise.
    package var baseURL: String
    package var caFile: String?

    package static let productionURL = "https://fcm.googleapis.com"
    package static let productionTokenURL = "https://oauth2.googleapis.com/token"
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    package struct Problem: Error, Sendable {
        package var message: String
    }

    /// Reads a service account's JSON (`project_id`, `client_email`, `private_key`). The
    /// problem never quotes the file's content.
    package init(serviceAccountJSON data: Data, tokenURL: String?, baseURL: String?, caFile: String?) throws(Problem) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let project = object["project_id"] as? String, !project.isEmpty,
              let email = object["client_email"] as? String, !email.isEmpty,
              let pem = object["private_key"] as? String
        else { throw Problem(message: "is not a service account key (project_id, client_email, private_key)") }
        guard let key = try? JWSSigningKey(pem: pem), key.algorithm == .rs256 else {
            throw Problem(message: "holds no RSA private key")
        }
        projectID = project
        clientEmail = email
        self.key = key
        self.tokenURL = tokenURL ?? (object["token_uri"] as? String) ?? Self.productionTokenURL
        self.baseURL = (baseURL ?? Self.productionURL).hasSuffix("/") ? String((baseURL ?? "").dropLast()) : (baseURL ?? Self.productionURL)
        self.caFile = caFile
    }
}
