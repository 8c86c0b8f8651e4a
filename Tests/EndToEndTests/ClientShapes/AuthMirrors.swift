import Foundation
import HTTPServer
import JSON

/// supabase-swift 2.55.1's Auth types (`Sources/Auth/Types.swift`, decoded with
/// `AuthClient.Configuration.jsonDecoder`: snake_case keys, `JSONDecoder.supabase()` dates).
enum AuthMirrors {
    /// `Session`: what `POST /token` answers.
    struct Session: Decodable {
        var providerToken: String?
        var providerRefreshToken: String?
        var accessToken: String
        var tokenType: String
        var expiresIn: TimeInterval
        var expiresAt: TimeInterval
        var refreshToken: String
        var weakPassword: WeakPassword?
        var user: User
    }

    /// `User`, with its own `init(from:)` (metadata and `is_anonymous` may be absent).
    struct User: Decodable {
        var id: UUID
        var appMetadata: [String: JSONValue]
        var userMetadata: [String: JSONValue]
        var aud: String
        var confirmationSentAt, recoverySentAt, emailChangeSentAt, invitedAt: Date?
        var newEmail, actionLink, email, phone, role: String?
        var createdAt: Date
        var confirmedAt, emailConfirmedAt, phoneConfirmedAt, lastSignInAt: Date?
        var updatedAt: Date
        var identities: [UserIdentity]?
        var isAnonymous: Bool
        var factors: [Factor]?

        enum CodingKeys: CodingKey {
            case id, appMetadata, userMetadata, aud, confirmationSentAt, recoverySentAt, emailChangeSentAt, newEmail
            case invitedAt, actionLink, email, phone, createdAt, confirmedAt, emailConfirmedAt, phoneConfirmedAt
            case lastSignInAt, role, updatedAt, identities, isAnonymous, factors
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(UUID.self, forKey: .id)
            appMetadata = try container.decodeIfPresent([String: JSONValue].self, forKey: .appMetadata) ?? [:]
            userMetadata = try container.decodeIfPresent([String: JSONValue].self, forKey: .userMetadata) ?? [:]
            aud = try container.decode(String.self, forKey: .aud)
            confirmationSentAt = try container.decodeIfPresent(Date.self, forKey: .confirmationSentAt)
            recoverySentAt = try container.decodeIfPresent(Date.self, forKey: .recoverySentAt)
            emailChangeSentAt = try container.decodeIfPresent(Date.self, forKey: .emailChangeSentAt)
            newEmail = try container.decodeIfPresent(String.self, forKey: .newEmail)
            invitedAt = try container.decodeIfPresent(Date.self, forKey: .invitedAt)
            actionLink = try container.decodeIfPresent(String.self, forKey: .actionLink)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            phone = try container.decodeIfPresent(String.self, forKey: .phone)
            createdAt = try container.decode(Date.self, forKey: .createdAt)
            confirmedAt = try container.decodeIfPresent(Date.self, forKey: .confirmedAt)
            emailConfirmedAt = try container.decodeIfPresent(Date.self, forKey: .emailConfirmedAt)
            phoneConfirmedAt = try container.decodeIfPresent(Date.self, forKey: .phoneConfirmedAt)
            lastSignInAt = try container.decodeIfPresent(Date.self, forKey: .lastSignInAt)
            role = try container.decodeIfPresent(String.self, forKey: .role)
            updatedAt = try container.decode(Date.self, forKey: .updatedAt)
            identities = try container.decodeIfPresent([UserIdentity].self, forKey: .identities)
            isAnonymous = try container.decodeIfPresent(Bool.self, forKey: .isAnonymous) ?? false
            factors = try container.decodeIfPresent([Factor].self, forKey: .factors)
        }
    }

    /// `UserIdentity` (`identity_id` may be absent; `id`, `user_id`, `provider` may not).
    struct UserIdentity: Decodable {
        var id: String
        var identityId: UUID?
        var userId: UUID
        var identityData: [String: JSONValue]?
        var provider: String
        var createdAt, lastSignInAt, updatedAt: Date?
    }

    /// `Factor` (`FactorStatus`: `verified` or `unverified`).
    struct Factor: Decodable {
        enum Status: String, Decodable { case verified, unverified }
        let id: String
        let friendlyName: String?
        let factorType: String
        let status: Status
        let createdAt: Date
        let updatedAt: Date
    }

    /// `WeakPassword`.
    struct WeakPassword: Decodable {
        let reasons: [String]
    }

    /// `_RawAPIErrorResponse` (`Sources/Auth/Internal/APIClient.swift`): every non-2xx
    /// `/auth/v1` body. With `X-Supabase-Api-Version` ≥ 2024-01-01 the client takes `code` as
    /// the error code; a body that does not decode is "Unexpected error" / `unexpected_failure`.
    struct RawAPIErrorResponse: Decodable {
        struct RawWeakPassword: Decodable {
            let reasons: [String]?
        }

        let msg: String?
        let message: String?
        let errorDescription: String?
        let error: String?
        let code: String?
        let errorCode: String?
        let weakPassword: RawWeakPassword?

        /// `_getErrorMessage()`.
        var errorMessage: String { msg ?? message ?? errorDescription ?? error ?? "Unknown" }
    }
}
