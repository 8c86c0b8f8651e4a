import Domain
import Foundation
import HTTPServer
import JSON
import Store

/// The JSON shapes of the auth and user routes, with contract §1 timestamps.
package enum JSONOutput {
    package static func timestamp(_ date: Date?) -> JSONValue {
        date.map { .string(Timestamp.format($0)) } ?? .null
    }

    package static func user(_ user: User) -> JSONValue {
        [
            "id": .string(user.id.uuidString.lowercased()),
            "name": .string(user.name),
            "email": .string(user.email),
            "user_type": .string(user.userType.rawValue),
            "avatar_hash": user.avatarHash.map(JSONValue.string) ?? .null,
            "deactivated_at": timestamp(user.deactivatedAt),
            "created_at": timestamp(user.createdAt),
            "updated_at": timestamp(user.updatedAt),
            "version": .number(Double(user.version)),
        ]
    }

    package static func apiKey(_ key: APIKeyStore.APIKey) -> JSONValue {
        [
            "id": .string(key.id.uuidString.lowercased()),
            "name": .string(key.name),
            "prefix": .string(key.prefix),
            "created_at": timestamp(key.createdAt),
            "last_used_at": timestamp(key.lastUsedAt),
            "expires_at": timestamp(key.expiresAt),
        ]
    }
}
